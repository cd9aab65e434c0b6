import type { Pool } from '../../../platform/database/pool.js';
import { pgErrorCode, PgErrorCode } from '../../../platform/database/pool.js';
import { isPlatformAdmin, requireOrgRole, requirePlatformAdmin } from '../auth/authorization.js';
import type { Identity, OrgRole } from '../auth/identity.js';
import type { IdentityCache } from '../auth/identity-cache.js';
import { WorkflowErrors } from '../../errors.js';
import * as orgs from './org-repository.js';
import {
  insertProcessGroup,
  listProcessGroups,
  type ProcessGroupRecord,
} from '../../engine/store/process-groups.js';

/** Organisations, their members and their process groups, with the role checks of the interface decisions. */
export class OrgService {
  constructor(
    private readonly pool: Pool,
    private readonly identities: IdentityCache,
  ) {}

  /** Creates an organisation (PlatformAdmin). */
  async create(identity: Identity, name: string, slug: string): Promise<orgs.OrgRecord> {
    requirePlatformAdmin(identity);
    try {
      return await orgs.insertOrg(this.pool, name, slug);
    } catch (error) {
      if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
        throw WorkflowErrors.conflict(`An organisation with slug '${slug}' already exists`);
      }
      throw error;
    }
  }

  /** The caller's organisations; every organisation for a PlatformAdmin. */
  async list(identity: Identity): Promise<orgs.OrgRecord[]> {
    if (isPlatformAdmin(identity)) return orgs.listAllOrgs(this.pool);
    return identity.orgs.map(({ id, name, slug }) => ({ id, name, slug }));
  }

  /** Grants `roles` to a user in an organisation, replacing earlier roles (OrgAdmin). */
  async setMembership(
    identity: Identity,
    orgId: string,
    userId: string,
    roles: readonly OrgRole[],
  ): Promise<orgs.MembershipRecord> {
    requireOrgRole(identity, orgId, []);
    const membership = await orgs.upsertMembership(this.pool, orgId, userId, roles);
    // The NOTIFY reaches this process too, but the member's next request may arrive before it.
    this.identities.invalidate();
    if (!membership) throw WorkflowErrors.notFound('No such organisation or user');
    return membership;
  }

  /** Removes a user from an organisation (OrgAdmin). */
  async removeMembership(identity: Identity, orgId: string, userId: string): Promise<void> {
    requireOrgRole(identity, orgId, []);
    const removed = await orgs.deleteMembership(this.pool, orgId, userId);
    this.identities.invalidate();
    if (!removed) {
      throw WorkflowErrors.notFound('This user is not a member of the organisation');
    }
  }

  /** The members of an organisation (OrgAdmin). */
  async members(identity: Identity, orgId: string): Promise<orgs.MembershipRecord[]> {
    requireOrgRole(identity, orgId, []);
    await this.requireOrg(orgId);
    return orgs.listMembers(this.pool, orgId);
  }

  /** Creates a process group (OrgAdmin or Developer). */
  async createProcessGroup(identity: Identity, orgId: string, name: string): Promise<ProcessGroupRecord> {
    requireOrgRole(identity, orgId, ['Developer']);
    try {
      return await insertProcessGroup(this.pool, orgId, name);
    } catch (error) {
      const code = pgErrorCode(error);
      if (code === PgErrorCode.uniqueViolation) {
        throw WorkflowErrors.conflict(`A process group named '${name}' already exists in this organisation`);
      }
      if (code === PgErrorCode.foreignKeyViolation) throw WorkflowErrors.notFound('No such organisation');
      throw error;
    }
  }

  /** The process groups of an organisation (any member). */
  async processGroups(identity: Identity, orgId: string): Promise<ProcessGroupRecord[]> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator', 'Reader', 'Worker']);
    await this.requireOrg(orgId);
    return listProcessGroups(this.pool, orgId);
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.orgExists(this.pool, orgId))) throw WorkflowErrors.notFound('No such organisation');
  }
}
