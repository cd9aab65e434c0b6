import { isPlatformAdmin } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';

/**
 * The orgs where the caller may do what needs one of `roles` (or OrgAdmin), as requireOrgRole
 * decides it for one org: all for a PlatformAdmin. A list over this scope shows exactly what weft's
 * own endpoint would show org by org. 403 when there is no such org.
 */
export function roleScopeOf(identity: Identity, roles: readonly OrgRole[]): TaskScope {
  if (isPlatformAdmin(identity)) return 'all';
  const orgIds = identity.orgs
    .filter((org) => org.roles.some((role) => role === 'OrgAdmin' || roles.includes(role)))
    .map((org) => org.id);
  if (orgIds.length === 0)
    throw CamundaErrors.forbidden(
      `This needs one of the roles ${['OrgAdmin', ...roles].join(', ')} in an organisation`,
    );
  return { orgIds };
}
