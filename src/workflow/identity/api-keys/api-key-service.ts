import type { Pool } from '../../../platform/database/pool.js';
import { pgErrorCode, PgErrorCode } from '../../../platform/database/pool.js';
import { generateApiKey } from '../auth/api-key-format.js';
import type { Identity } from '../auth/identity.js';
import type { IdentityCache } from '../auth/identity-cache.js';
import { WorkflowErrors } from '../../errors.js';
import type { ApiKeyHasher } from './api-key-hasher.js';
import { insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRecord } from './api-key-repository.js';

/** A created key, with the plaintext shown this once. */
export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  plaintext_key: string;
  created_at: string;
}

/** The caller's own API keys: create (plaintext once), list, revoke. */
export class ApiKeyService {
  constructor(
    private readonly pool: Pool,
    private readonly hasher: ApiKeyHasher,
    private readonly identities: IdentityCache,
  ) {}

  /** Creates a key for the caller. */
  async create(identity: Identity, name: string): Promise<CreatedApiKey> {
    // A prefix collision among 2^48 values is rare but possible: draw again rather than fail.
    for (let attempt = 0; ; attempt++) {
      const key = generateApiKey();
      try {
        const record = await insertApiKey(this.pool, {
          userId: identity.userId,
          name,
          prefix: key.prefix,
          keyHash: this.hasher.hash(key.plaintext),
        });
        return {
          id: record.id,
          name: record.name,
          prefix: record.prefix,
          plaintext_key: key.plaintext,
          created_at: record.created_at,
        };
      } catch (error) {
        if (pgErrorCode(error) !== PgErrorCode.uniqueViolation || attempt >= 3) throw error;
      }
    }
  }

  /** The caller's keys, revoked ones included, without secrets. */
  list(identity: Identity): Promise<ApiKeyRecord[]> {
    return listApiKeys(this.pool, identity.userId);
  }

  /** Revokes one of the caller's keys; 404 for a key that is not theirs. */
  async revoke(identity: Identity, keyId: string): Promise<void> {
    const revoked = await revokeApiKey(this.pool, identity.userId, keyId);
    // The NOTIFY reaches this process too, but the key's next request may arrive before it.
    this.identities.invalidate();
    if (!revoked) throw WorkflowErrors.notFound('No such API key');
  }
}
