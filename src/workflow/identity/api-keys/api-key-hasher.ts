import { randomBytes } from 'node:crypto';
import type { Pool } from '../../../platform/database/pool.js';
import { constantTimeEqual, hmacSha256 } from '../../../platform/crypto/tokens.js';
import { readOrCreateServiceSecret } from '../service-secret-repository.js';

/**
 * Hashes API keys with HMAC-SHA256. Keys carry 192 random bits, so a slow password hash would only
 * cost time on every request; the hashing key, generated once per deployment and kept in the
 * database, makes stored hashes useless outside it.
 */
export class ApiKeyHasher {
  private constructor(private readonly key: Buffer) {}

  /** Loads the deployment's hashing key, creating it on first use (safe when instances race). */
  static async load(pool: Pool): Promise<ApiKeyHasher> {
    const key = await readOrCreateServiceSecret(pool, 'api_key_hash_key', randomBytes(32));
    if (!key) throw new Error('The API-key hashing key could not be loaded');
    return new ApiKeyHasher(key);
  }

  /** The stored form of a plaintext key. */
  hash(plaintext: string): Buffer {
    return hmacSha256(this.key, plaintext);
  }

  /** Whether `plaintext` is the key whose stored hash is `storedHash`, in constant time. */
  matches(plaintext: string, storedHash: Buffer): boolean {
    return constantTimeEqual(this.hash(plaintext), storedHash);
  }
}
