import type { Pool } from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import { WorkflowErrors } from '../errors.js';
import { orgExists } from '../identity/orgs/org-repository.js';
import { openSecret, sealSecret } from './secret-cipher.js';
import {
  deleteSecret,
  findSecrets,
  listSecrets,
  upsertSecret,
  type SecretSummary,
} from './secret-repository.js';
import type { SecretsKeyring } from './secrets-keyring.js';

/** What resolving names found: values by name, and the names that do not exist. */
export interface ResolvedSecrets {
  values: Map<string, string>;
  missing: string[];
}

/**
 * Encrypted, organisation-scoped secrets. Values go in (OrgAdmin) and come out only to a connector
 * that resolves its placeholders; the API lists names and times, never values.
 */
export class SecretService {
  constructor(
    private readonly pool: Pool,
    private readonly keyring: SecretsKeyring,
  ) {}

  /** Creates or replaces a secret (OrgAdmin); `created` says which. */
  async put(
    identity: Identity,
    orgId: string,
    name: string,
    value: string,
  ): Promise<SecretSummary & { created: boolean }> {
    await this.authorize(identity, orgId);
    return upsertSecret(this.pool, orgId, name, sealSecret(this.keyring.current, orgId, name, value));
  }

  /** The org's secrets without values (OrgAdmin). */
  async list(identity: Identity, orgId: string): Promise<SecretSummary[]> {
    await this.authorize(identity, orgId);
    return listSecrets(this.pool, orgId);
  }

  /** Deletes a secret (OrgAdmin); 404 when there is none. */
  async delete(identity: Identity, orgId: string, name: string): Promise<void> {
    await this.authorize(identity, orgId);
    if (!(await deleteSecret(this.pool, orgId, name)))
      throw WorkflowErrors.notFound(`No secret named '${name}'`);
  }

  /** Decrypts the named secrets of an org for a connector, in one query. */
  async resolve(orgId: string, names: readonly string[]): Promise<ResolvedSecrets> {
    const values = new Map<string, string>();
    if (names.length > 0) {
      for (const stored of await findSecrets(this.pool, orgId, [...new Set(names)])) {
        values.set(stored.name, openSecret(this.keyring, orgId, stored.name, stored));
      }
    }
    return { values, missing: [...new Set(names)].filter((name) => !values.has(name)) };
  }

  private async authorize(identity: Identity, orgId: string): Promise<void> {
    requireOrgRole(identity, orgId, []);
    if (!(await orgExists(this.pool, orgId))) throw WorkflowErrors.notFound('No such organisation');
  }
}
