import { isPlatformAdmin } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';

/** The orgs whose tasks a caller may read: every org it belongs to (all for a PlatformAdmin). */
export function memberScopeOf(identity: Identity): TaskScope {
  if (isPlatformAdmin(identity)) return 'all';
  if (identity.orgs.length === 0) throw CamundaErrors.forbidden('The caller belongs to no organisation');
  return { orgIds: identity.orgs.map((org) => org.id) };
}

// Reading definitions, deployments and instances takes one of these roles, as on weft's own API.
const readerRoles: readonly OrgRole[] = ['OrgAdmin', 'Developer', 'Operator', 'Reader'];

/**
 * The orgs whose deployments, definitions and instances a caller may read: those where it is a
 * Reader, Operator, Developer or OrgAdmin (all for a PlatformAdmin). Lists of a caller without such
 * an org are empty, as Camunda lists only what a user is authorised to see.
 */
export function readerScopeOf(identity: Identity): TaskScope {
  if (isPlatformAdmin(identity)) return 'all';
  return {
    orgIds: identity.orgs
      .filter((org) => org.roles.some((role) => readerRoles.includes(role)))
      .map((org) => org.id),
  };
}
