import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { openSecret, sealSecret } from './secret-cipher.js';
import { lockSecretsNotUnder, resealSecret } from './secret-repository.js';
import type { SecretsKeyring } from './secrets-keyring.js';

/** What a rotation did. */
export interface RotationReport {
  reencrypted: number;
  keyId: string;
}

/**
 * Re-encrypts every secret not yet under the keyring's current key, in batches of one transaction
 * each (a fresh nonce per value). Rows are locked with SKIP LOCKED, so two rotations at once share
 * the work. A value under a key the keyring lacks stops the rotation with an error naming the
 * secret and the key id.
 */
export async function rotateSecretsKey(
  pool: Pool,
  keyring: SecretsKeyring,
  batchSize = 100,
): Promise<RotationReport> {
  let reencrypted = 0;
  for (;;) {
    const done = await withTransaction(pool, async (client) => {
      const stale = await lockSecretsNotUnder(client, keyring.current.id, batchSize);
      for (const row of stale) {
        const value = openSecret(keyring, row.orgId, row.name, row);
        await resealSecret(
          client,
          row.orgId,
          row.name,
          sealSecret(keyring.current, row.orgId, row.name, value),
        );
      }
      return stale.length;
    });
    reencrypted += done;
    if (done < batchSize) return { reencrypted, keyId: keyring.current.id };
  }
}
