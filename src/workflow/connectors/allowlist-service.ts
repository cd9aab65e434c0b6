import type { Pool } from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import { WorkflowErrors } from '../errors.js';
import { orgExists } from '../identity/orgs/org-repository.js';
import { findAllowlist, saveAllowlist } from './allowlist-repository.js';
import { allowlistProblems } from './outbound-guard.js';

/** The per-org outbound allowlist of connectors (OrgAdmin). */
export class AllowlistService {
  constructor(private readonly pool: Pool) {}

  /** The allowlist; an empty list means no allowlist (any host except link-local addresses). */
  async get(identity: Identity, orgId: string): Promise<{ hosts: string[] }> {
    await this.authorize(identity, orgId);
    return { hosts: (await findAllowlist(this.pool, orgId)) ?? [] };
  }

  /** Replaces the allowlist; 400 listing every unusable entry. */
  async put(identity: Identity, orgId: string, hosts: string[]): Promise<{ hosts: string[] }> {
    await this.authorize(identity, orgId);
    const problems = allowlistProblems(hosts);
    if (problems.length > 0)
      throw WorkflowErrors.validation('The allowlist has unusable entries', { errors: problems });
    const normalised = [...new Set(hosts.map((host) => host.trim().toLowerCase()))];
    await saveAllowlist(this.pool, orgId, normalised);
    return { hosts: normalised };
  }

  private async authorize(identity: Identity, orgId: string): Promise<void> {
    requireOrgRole(identity, orgId, []);
    if (!(await orgExists(this.pool, orgId))) throw WorkflowErrors.notFound('No such organisation');
  }
}
