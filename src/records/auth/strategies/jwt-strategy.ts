import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../../../platform/clock.js';
import type { ClaimMappingContext } from '../claims/claim-mapping.js';
import { mapClaims, usesLookup } from '../claims/claim-mapping.js';
import type { ClaimMappingSpec } from '../claims/claim-mapping-schema.js';
import type { RequiredScopes } from '../scopes/required-scopes.js';
import { scopesOfClaims } from '../scopes/token-scopes.js';
import type { JwksCache, KeySetState } from './jwks-cache.js';
import {
  absent,
  bearerToken,
  invalid,
  type Credentials,
  type Strategy,
  type StrategyVerdict,
} from './strategy.js';
import type { AuthStrategyDefinition } from './strategy-definition.js';

/** Allowed clock difference with the issuer for `exp`, `nbf` and `iat` (seconds). */
export const clockSkewSeconds = 30;
const rememberedLimit = 10_000;
const lookupRemapMilliseconds = 30_000;
const maxTokenLength = 8192;

interface Issuer {
  issuer: string;
  audience: string | undefined;
  keys: JwksCache;
}

interface Remembered {
  verdict: Extract<StrategyVerdict, { kind: 'authenticated' }>;
  /** Token expiry plus skew (ms). */
  until: number;
  generation: number;
  keys: JwksCache;
  /** When the claims were mapped (ms); lookups are redone after 30 seconds. */
  mappedAt: number;
}

/**
 * `type: jwt`: a bearer JWT from one of the strategy's issuers, verified against that issuer's key
 * set (`jwksUrl`, see JwksCache) with its audience and a 30-second clock skew, then mapped through
 * `claimMapping`; its `scope`/`scp` claims are the scopes it grants. A verified token is remembered (bounded) so the next request with it is decided
 * synchronously; the memory is dropped when the key set changes, when the token expires, and after
 * 30 seconds when the mapping reads a lookup table.
 */
export class JwtStrategy implements Strategy {
  readonly type = 'jwt';
  readonly name: string;
  private readonly issuers: Issuer[];
  private readonly mapping: ClaimMappingSpec;
  private readonly failOpen: boolean;
  private readonly requiredScopes: RequiredScopes | undefined;
  private readonly remembered = new Map<string, Remembered>();
  private readonly remapAfter: number;

  constructor(
    definition: AuthStrategyDefinition,
    private readonly context: ClaimMappingContext & { clock: Clock },
    keySets: (url: string) => JwksCache,
  ) {
    const jwt = definition.spec.jwt;
    if (!jwt) throw new Error(`AuthStrategy ${definition.name} has no jwt section`);
    this.name = definition.name;
    this.mapping = jwt.claimMapping;
    this.failOpen = definition.spec.revocation?.failOpen ?? false;
    this.requiredScopes = definition.spec.requiredScopes;
    this.remapAfter = usesLookup(jwt.claimMapping) ? lookupRemapMilliseconds : Infinity;
    const listed = jwt.issuers ?? [{ issuer: jwt.issuer ?? '', audience: jwt.audience }];
    this.issuers = listed.map((entry) => ({
      issuer: entry.issuer,
      audience: entry.audience ?? jwt.audience,
      keys: keySets(('jwksUrl' in entry ? entry.jwksUrl : undefined) ?? jwt.jwksUrl ?? ''),
    }));
  }

  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined {
    const token = bearerToken(credentials.headers);
    if (token === undefined || token === '') return absent;
    const remembered = this.remembered.get(token);
    if (remembered === undefined) return undefined;
    const now = this.context.clock.now().getTime();
    if (now >= remembered.until) return invalid;
    const keys = remembered.keys.currentAtOnce();
    if (keys === undefined || keys.generation !== remembered.generation) return undefined;
    if (now - remembered.mappedAt >= this.remapAfter) return undefined;
    return keys.stale ? { ...remembered.verdict, failMode: 'JWKS_CACHED' } : remembered.verdict;
  }

  async authenticate(credentials: Credentials): Promise<StrategyVerdict> {
    const token = bearerToken(credentials.headers);
    if (token === undefined || token === '') return absent;
    if (token.length > maxTokenLength) return invalid;
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return invalid;
    }
    const issuer = this.issuers.find((candidate) => candidate.issuer === unverified.iss);
    if (issuer === undefined) return invalid;
    let keys = await issuer.keys.current();
    let verified = keys && (await this.verify(token, issuer, keys));
    if (verified === 'unknown-key') {
      keys = await issuer.keys.refreshForUnknownKey();
      verified = keys && (await this.verify(token, issuer, keys));
    }
    if (keys === undefined || verified === undefined || verified === 'unknown-key') return invalid;
    const identity = await mapClaims(this.mapping, verified, this.context);
    if (identity === null || verified.exp === undefined) return invalid;
    const verdict = {
      kind: 'authenticated' as const,
      identity,
      strategy: this.name,
      issuedAt: (verified.iat ?? 0) * 1000,
      failMode: keys.stale ? ('JWKS_CACHED' as const) : ('NONE' as const),
      failOpen: this.failOpen,
      scopes: scopesOfClaims(verified),
      requiredScopes: this.requiredScopes,
    };
    this.remember(token, {
      verdict: { ...verdict, failMode: 'NONE' },
      until: (verified.exp + clockSkewSeconds) * 1000,
      generation: keys.generation,
      keys: issuer.keys,
      mappedAt: this.context.clock.now().getTime(),
    });
    return verdict;
  }

  private async verify(
    token: string,
    issuer: Issuer,
    keys: KeySetState,
  ): Promise<JWTPayload | 'unknown-key' | undefined> {
    try {
      const { payload } = await jwtVerify(token, keys.getKey, {
        issuer: issuer.issuer,
        ...(issuer.audience !== undefined ? { audience: issuer.audience } : {}),
        currentDate: this.context.clock.now(),
        clockTolerance: clockSkewSeconds,
        requiredClaims: ['exp'],
        algorithms: [
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
        ],
      });
      return payload;
    } catch (error) {
      return error instanceof errors.JWKSNoMatchingKey ? 'unknown-key' : undefined;
    }
  }

  private remember(token: string, entry: Remembered): void {
    if (this.remembered.size >= rememberedLimit) {
      const oldest = this.remembered.keys().next();
      if (!oldest.done) this.remembered.delete(oldest.value);
    }
    this.remembered.set(token, entry);
  }
}
