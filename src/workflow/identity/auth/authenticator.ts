import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import type { ApiKeyHasher } from '../api-keys/api-key-hasher.js';
import type { LastUsedRecorder } from '../api-keys/last-used-recorder.js';
import { looksLikeApiKey, parseApiKey } from './api-key-format.js';
import type { Identity } from './identity.js';
import type { IdentityCache } from './identity-cache.js';
import { findApiKeyCandidate, findIdentityByUserId } from './identity-repository.js';
import type { JwtCodec } from './jwt.js';

/**
 * Turns an `Authorization` header into an Identity. Tokens starting with `ck_` take the API-key
 * path, all others the JWT path; anything wrong, missing, expired or revoked yields null. What the
 * database says about the user or key comes through the IdentityCache (invalidated on every change).
 */
export class Authenticator {
  constructor(
    private readonly pool: Pool,
    private readonly jwt: JwtCodec,
    private readonly hasher: ApiKeyHasher,
    private readonly lastUsed: LastUsedRecorder,
    private readonly clock: Clock,
    private readonly cache: IdentityCache,
  ) {}

  /** The caller's identity, or null when unauthenticated. */
  async authenticate(authorization: string | undefined): Promise<Identity | null> {
    const token = bearerToken(authorization);
    if (token === null) return null;
    return looksLikeApiKey(token) ? this.viaApiKey(token) : this.viaJwt(token);
  }

  /**
   * The identity of a user whose password was just checked (HTTP Basic on `/engine-rest`), read
   * through the cache as for a JWT.
   */
  async identityOfUser(userId: string): Promise<Identity | null> {
    const identity = await this.cache.read(`user:${userId}`, () => findIdentityByUserId(this.pool, userId));
    return identity ? { ...identity, via: { kind: 'password' } } : null;
  }

  private async viaJwt(token: string): Promise<Identity | null> {
    const userId = await this.jwt.verify(token, this.clock.now());
    if (userId === null) return null;
    const identity = await this.cache.read(`user:${userId}`, () => findIdentityByUserId(this.pool, userId));
    return identity ? { ...identity, via: { kind: 'jwt' } } : null;
  }

  private async viaApiKey(token: string): Promise<Identity | null> {
    const parsed = parseApiKey(token);
    if (parsed === null) return null;
    // A revocation invalidates the cache, so a revoked key fails on the very next request.
    const candidate = await this.cache.read(`key:${parsed.prefix}`, () =>
      findApiKeyCandidate(this.pool, parsed.prefix),
    );
    if (candidate === null || candidate.revoked || !this.hasher.matches(token, candidate.keyHash))
      return null;
    this.lastUsed.touch(candidate.keyId);
    return { ...candidate.identity, via: { kind: 'api-key', keyId: candidate.keyId } };
  }
}

function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ ]+(\S{1,4096})\s*$/i.exec(header);
  return match?.[1] ?? null;
}
