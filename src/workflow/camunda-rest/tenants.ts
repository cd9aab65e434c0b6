import type { Pool } from '../../platform/database/pool.js';
import { isPlatformAdmin } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import { findOrgsBySlugs } from '../identity/orgs/org-repository.js';
import type { TaskScope } from '../external-tasks/task-scope.js';
import { CamundaErrors } from './camunda-errors.js';

/*
 * A Camunda tenant id is the slug of a weft org (docs/workflow/camunda7.md, Tenants).
 */

/** An org as a tenant: its id and its slug (the tenant id). */
export interface Tenant {
  orgId: string;
  tenantId: string;
}

/** Turns Camunda tenant ids into weft orgs for a caller. */
export class Tenants {
  constructor(private readonly pool: Pool) {}

  /**
   * Narrows a caller's scope to the named tenants (a read or a fetch). Without tenant ids the
   * whole scope stays, as Camunda gives a user the tasks of every tenant it belongs to. A tenant id
   * that names no org, or one outside the scope, is a 400 (the same answer for both, so a caller
   * cannot learn which orgs exist).
   */
  async narrow(scope: TaskScope, tenantIds: readonly string[] | undefined): Promise<TaskScope> {
    if (tenantIds === undefined) return scope;
    const tenants = await this.resolve(tenantIds);
    const outside = tenants.filter((tenant) => scope !== 'all' && !scope.orgIds.includes(tenant.orgId));
    const missing = tenantIds.filter((id) => !tenants.some((tenant) => tenant.tenantId === id));
    const refused = [...missing, ...outside.map((tenant) => tenant.tenantId)];
    if (refused.length > 0) throw unknownTenants(refused);
    return { orgIds: tenants.map((tenant) => tenant.orgId) };
  }

  /**
   * The one org a request that creates something acts in: the named tenant (which the caller must
   * belong to, unless a PlatformAdmin), else the caller's only org. 400 when it names none and
   * belongs to several or none: the message says to pass a tenant id.
   */
  async single(identity: Identity, tenantId: string | undefined, parameter = 'tenantId'): Promise<Tenant> {
    if (tenantId === undefined) {
      const [only, ...others] = identity.orgs;
      if (only !== undefined && others.length === 0) return { orgId: only.id, tenantId: only.slug };
      throw CamundaErrors.invalid(
        identity.orgs.length === 0
          ? `The caller belongs to no organisation: pass ${parameter} (the slug of a weft organisation)`
          : `The caller belongs to ${identity.orgs.length} organisations (${identity.orgs
              .map((org) => org.slug)
              .join(', ')}): pass ${parameter} to say which one`,
      );
    }
    const member = identity.orgs.find((org) => org.slug === tenantId);
    if (member !== undefined) return { orgId: member.id, tenantId: member.slug };
    if (isPlatformAdmin(identity)) {
      const [found] = await this.resolve([tenantId]);
      if (found !== undefined) return found;
    }
    throw unknownTenants([tenantId]);
  }

  private async resolve(tenantIds: readonly string[]): Promise<Tenant[]> {
    if (tenantIds.length === 0) return [];
    const orgs = await findOrgsBySlugs(this.pool, tenantIds);
    return orgs.map((org) => ({ orgId: org.id, tenantId: org.slug }));
  }
}

function unknownTenants(tenantIds: readonly string[]): Error {
  return CamundaErrors.invalid(
    `Unknown tenant id${tenantIds.length > 1 ? 's' : ''} ${tenantIds
      .map((id) => `'${id}'`)
      .join(', ')}: a tenant id is the slug of a weft organisation the caller may act in`,
  );
}
