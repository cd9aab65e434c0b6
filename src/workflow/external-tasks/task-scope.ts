import { isPlatformAdmin } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import { WorkflowErrors } from '../errors.js';

/**
 * The orgs whose external tasks a request may fetch and report on: every org (the public mode, and a
 * PlatformAdmin under `WORKFLOW_EXTERNAL_TASKS_AUTH=required`) or the listed ones.
 */
export type TaskScope = 'all' | { readonly orgIds: readonly string[] };

// OrgAdmin may do everything inside its org (docs/workflow/identity.md), external tasks included.
const workerRoles: readonly OrgRole[] = ['Worker', 'OrgAdmin'];

/** The scope of an authenticated caller: the orgs where it is a worker; 403 when there are none. */
export function workerScopeOf(identity: Identity): TaskScope {
  if (isPlatformAdmin(identity)) return 'all';
  const orgIds = identity.orgs
    .filter((org) => org.roles.some((role) => workerRoles.includes(role)))
    .map((org) => org.id);
  if (orgIds.length === 0)
    throw WorkflowErrors.forbidden('External tasks need the Worker role in an organisation');
  return { orgIds };
}

/** True when a task of `orgId` is inside the scope. */
export function isInScope(scope: TaskScope, orgId: string): boolean {
  return scope === 'all' || scope.orgIds.includes(orgId);
}
