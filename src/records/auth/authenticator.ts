import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Identity } from '../types.js';
import { apiKeyPrefix, identityOfApiKey } from './api-keys.js';
import type { JwtVerifier } from './jwt-verifier.js';

/**
 * Finds who is calling: an API key in `X-API-Key` (or as a bearer token, recognised by its prefix),
 * else a JWT in `Authorization: Bearer`. The auth issue replaces this with the declarative strategies.
 */
export class Authenticator {
  constructor(
    private readonly pool: Pool,
    private readonly jwt: JwtVerifier,
    private readonly clock: Clock,
  ) {}

  /** The caller's identity, or null when the credentials are missing or invalid. */
  async authenticate(headers: IncomingHttpHeaders, address: string): Promise<Identity | null> {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') return identityOfApiKey(this.pool, apiKey, address);
    const authorization = headers.authorization;
    if (typeof authorization !== 'string' || !/^Bearer /i.test(authorization)) return null;
    const token = authorization.slice(7).trim();
    if (token.startsWith(apiKeyPrefix)) return identityOfApiKey(this.pool, token, address);
    return this.jwt.verify(token, this.clock.now());
  }
}
