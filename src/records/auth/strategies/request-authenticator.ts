import type { FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';
import type { BindingCache } from '../../role-bindings/binding-cache.js';
import type { Identity } from '../../types.js';
import { RecordsErrors } from '../../errors.js';
import type { RequiredScopes } from '../scopes/required-scopes.js';
import { noScopes, type GrantedScopes } from '../scopes/token-scopes.js';
import type { Credentials, FailMode, Strategy, StrategyVerdict } from './strategy.js';

/** Audit outcomes decided during authentication. */
export type AuthenticationOutcome = 'invalid_token' | 'revoked' | 'revocation_unavailable';

/** The authentication decision on one request. */
export type AuthenticationDecision =
  | {
      ok: true;
      identity: Identity;
      strategy: string;
      failMode: FailMode;
      /** What the credential grants and what its strategy requires per operation (see missingScopes). */
      scopes: GrantedScopes;
      requiredScopes: RequiredScopes | undefined;
    }
  | { ok: false; error: Error; outcome: AuthenticationOutcome; strategy: string; actor: string | null };

/**
 * Decides who is calling: the declared strategies in order (the built-in default strategy while
 * none is declared), first success wins; then the role bindings and the revocation set
 * (BindingCache). Synchronous whenever every strategy can answer without I/O.
 */
export class RequestAuthenticator {
  private readonly trust: (address: string, hop: number) => boolean;

  constructor(
    private readonly strategies: () => readonly Strategy[],
    private readonly bindings: BindingCache,
    trustedProxies: readonly string[],
  ) {
    this.trust = proxyAddr.compile([...trustedProxies]);
  }

  /** The decision when no strategy needs I/O, else undefined. */
  decideAtOnce(request: FastifyRequest): AuthenticationDecision | undefined {
    const credentials = this.credentials(request);
    for (const strategy of this.strategies()) {
      const verdict = strategy.authenticateAtOnce(credentials);
      if (verdict === undefined) return undefined;
      if (verdict.kind === 'authenticated') return this.checked(verdict);
    }
    return refused();
  }

  /** The decision, waiting for whatever the strategies need. */
  async decide(request: FastifyRequest): Promise<AuthenticationDecision> {
    const credentials = this.credentials(request);
    for (const strategy of this.strategies()) {
      const verdict = strategy.authenticateAtOnce(credentials) ?? (await strategy.authenticate(credentials));
      if (verdict.kind === 'authenticated') return this.checked(verdict);
    }
    return refused();
  }

  private checked(verdict: Extract<StrategyVerdict, { kind: 'authenticated' }>): AuthenticationDecision {
    const checked = this.bindings.check(verdict.identity, verdict.issuedAt, verdict.failOpen);
    const actor = verdict.identity.actor_id;
    switch (checked.kind) {
      case 'allowed':
        return {
          ok: true,
          identity: checked.identity,
          strategy: verdict.strategy,
          // A cached key set and a cached revocation copy can both apply; the revocation one is reported.
          failMode: checked.failMode !== 'NONE' ? checked.failMode : verdict.failMode,
          scopes: verdict.scopes ?? noScopes,
          requiredScopes: verdict.requiredScopes,
        };
      case 'revoked':
        return { ok: false, error: checked.error, outcome: 'revoked', strategy: verdict.strategy, actor };
      case 'unavailable':
        return {
          ok: false,
          error: checked.error,
          outcome: 'revocation_unavailable',
          strategy: verdict.strategy,
          actor,
        };
    }
  }

  private credentials(request: FastifyRequest): Credentials {
    let address: string | undefined;
    const trust = this.trust;
    return {
      headers: request.headers,
      get address() {
        if (address === undefined) {
          const resolved = proxyAddr(request.raw, trust);
          address = isIP(resolved) !== 0 ? resolved : '0.0.0.0';
        }
        return address;
      },
    };
  }
}

function refused(): AuthenticationDecision {
  return {
    ok: false,
    error: RecordsErrors.invalidToken(),
    outcome: 'invalid_token',
    strategy: 'none',
    actor: null,
  };
}
