import { isPlatformAdmin } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';

/** The orgs whose tasks a caller may read: every org it belongs to (all for a PlatformAdmin). */
export function memberScopeOf(identity: Identity): TaskScope {
  if (isPlatformAdmin(identity)) return 'all';
  if (identity.orgs.length === 0) throw CamundaErrors.forbidden('The caller belongs to no organisation');
  return { orgIds: identity.orgs.map((org) => org.id) };
}
