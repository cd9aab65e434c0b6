import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Identity } from '../types.js';
import { apiKeyPrefix, identityOfApiKey } from './api-keys.js';
import type { JwtVerifier } from './jwt-verifier.js';

/**
 * Finds who is calling: an API key in `X-API-Key` (or as a bearer token, recognised by its prefix),
 * else a JWT in `Authorization: Bearer`. The built-in `default` strategy when no AuthStrategy is
 * declared (see src/records/auth/strategies/).
 */
export class Authenticator {
  constructor(
    private readonly pool: Pool,
    private readonly jwt: JwtVerifier,
    private readonly clock: Clock,
  ) {}

  /** The caller's identity, or null when the credentials are missing or invalid. */
  async authenticate(headers: IncomingHttpHeaders, address: string): Promise<Identity | null> {
    const known = this.authenticateAtOnce(headers);
    if (known !== undefined) return known;
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') return identityOfApiKey(this.pool, apiKey, address);
    const token = bearerToken(headers) ?? '';
    if (token.startsWith(apiKeyPrefix)) return identityOfApiKey(this.pool, token, address);
    return this.jwt.verify(token, this.clock.now());
  }

  /**
   * What can be decided without waiting: null for missing credentials, the identity (or null) of a
   * JWT verified before; undefined when the credentials need a signature check or an API-key lookup
   * (keys are looked up on every request, so a revoked key fails at once).
   */
  authenticateAtOnce(headers: IncomingHttpHeaders): Identity | null | undefined {
    if (typeof headers['x-api-key'] === 'string') return undefined;
    const token = bearerToken(headers);
    if (token === undefined) return null;
    if (token.startsWith(apiKeyPrefix)) return undefined;
    return this.jwt.remembered(token, this.clock.now());
  }
}

const bearer = /^Bearer /i;

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization !== 'string' || !bearer.test(authorization)) return undefined;
  return authorization.slice(7).trim();
}
