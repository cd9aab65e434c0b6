import type { IncomingHttpHeaders } from 'node:http';
import type { Identity } from '../../types.js';
import type { RequiredScopes } from '../scopes/required-scopes.js';
import type { GrantedScopes } from '../scopes/token-scopes.js';

/** Why a request's authentication fell back on a cache: the spec's fail modes. */
export type FailMode = 'NONE' | 'REDIS_CACHED_ALLOWED' | 'REVOCATION_FAIL_OPEN' | 'JWKS_CACHED';

/** What a strategy sees of a request. */
export interface Credentials {
  headers: IncomingHttpHeaders;
  /** The client address, after the trusted-proxy rules for `X-Forwarded-For`. */
  address: string;
}

/** A strategy's verdict on one request. */
export type StrategyVerdict =
  /** The request carries no credential of this strategy's kind. */
  | { kind: 'absent' }
  /** It carries one, and it is missing, expired, forged or unmapped. */
  | { kind: 'invalid' }
  | {
      kind: 'authenticated';
      identity: Identity;
      /** Name of the strategy that authenticated (for a composite, the member). */
      strategy: string;
      /** When the credential was issued (ms); credentials issued at or before a revocation fail. */
      issuedAt: number;
      failMode: FailMode;
      /** `revocation.failOpen` of the strategy that authenticated. */
      failOpen: boolean;
      /** The scopes the credential grants (JWT `scope`/`scp`, an API key's scopes); none when absent. */
      scopes?: GrantedScopes;
      /** `requiredScopes` of the strategy that authenticated; nothing is required when absent. */
      requiredScopes?: RequiredScopes;
    };

/** A declared authentication strategy (`kind: AuthStrategy`) ready to authenticate requests. */
export interface Strategy {
  readonly name: string;
  readonly type: 'jwt' | 'oidc' | 'api_key' | 'composite' | 'default';
  /**
   * The verdict when it needs no I/O (a credential verified before, or none at all); undefined when
   * the request must wait for `authenticate`.
   */
  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined;
  authenticate(credentials: Credentials): Promise<StrategyVerdict>;
}

/** Verdicts that need no work. */
export const absent: StrategyVerdict = { kind: 'absent' };
export const invalid: StrategyVerdict = { kind: 'invalid' };

const bearer = /^Bearer /i;

/** The bearer token of `Authorization`, if any. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization !== 'string' || !bearer.test(authorization)) return undefined;
  return authorization.slice(7).trim();
}
