import type { Pool } from '../../../platform/database/pool.js';
import type { Identity } from '../../types.js';
import { apiKeyPrefix, identityOfApiKeyRow } from '../api-keys.js';
import type { Authenticator } from '../authenticator.js';
import type { JwtVerifier } from '../jwt-verifier.js';
import type { GrantedScopes } from '../scopes/token-scopes.js';
import { bearerToken, invalid, type Credentials, type Strategy, type StrategyVerdict } from './strategy.js';

/** Name the built-in strategy carries in the auth audit log. */
export const defaultStrategyName = 'default';

/**
 * The strategy used while no `kind: AuthStrategy` is declared: the environment's JWT settings
 * (`RECORDS_JWT_*`) and API keys in `X-API-Key` or as a `wrk_` bearer token (see Authenticator).
 */
export class DefaultStrategy implements Strategy {
  readonly type = 'default';
  readonly name = defaultStrategyName;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly jwt: JwtVerifier,
    private readonly pool: Pool,
  ) {}

  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined {
    const known = this.authenticator.authenticateAtOnce(credentials.headers);
    if (known === undefined) return undefined;
    if (known === null) return invalid;
    return this.verdict(known, this.jwt.issuedAt(bearerToken(credentials.headers) ?? '') ?? 0);
  }

  async authenticate(credentials: Credentials): Promise<StrategyVerdict> {
    const { headers, address } = credentials;
    const token = bearerToken(headers);
    const apiKey = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
    if (apiKey !== undefined || token?.startsWith(apiKeyPrefix)) {
      const found = await identityOfApiKeyRow(this.pool, apiKey ?? token ?? '', address);
      return found === null ? invalid : this.verdict(found.identity, found.createdAt.getTime(), found.scopes);
    }
    const identity = await this.authenticator.authenticate(headers, address);
    if (identity === null) return invalid;
    return this.verdict(identity, this.jwt.issuedAt(token ?? '') ?? 0);
  }

  private verdict(identity: Identity, issuedAt: number, scopes?: GrantedScopes): StrategyVerdict {
    return {
      ...(scopes ? { scopes } : {}),
      kind: 'authenticated',
      identity,
      strategy: this.name,
      issuedAt,
      failMode: 'NONE',
      failOpen: false,
    };
  }
}
