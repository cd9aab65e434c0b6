import * as client from 'openid-client';
import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import { mapClaims, type ClaimMappingContext } from '../claims/claim-mapping.js';
import type { ClaimMappingSpec } from '../claims/claim-mapping-schema.js';
import {
  absent,
  invalid,
  type Credentials,
  type Strategy,
  type StrategyVerdict,
} from '../strategies/strategy.js';
import type { AuthStrategyDefinition } from '../strategies/strategy-definition.js';
import type { Identity } from '../../types.js';
import type { SecretEnvironment } from '../secret-reference.js';
import { resolveClientSecret } from './client-secret.js';
import { sessionIdentity } from './oidc-sessions.js';
import { cookieValue, sessionCookieName } from './session-cookie.js';

const defaultSessionTtlSeconds = 8 * 3600;
const discoveryRetryMilliseconds = 30_000;
const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Parses `sessionTtl`: `90m`, `8h`, `7d` or ISO 8601 `PT8H`/`P1D`; undefined when it does not parse. */
export function parseSessionTtl(text: string): number | undefined {
  const short = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (short?.[1] && short[2]) return Number(short[1]) * (units[short[2]] ?? 1) || undefined;
  const iso = /^P(?:(\d{1,4})D)?(?:T(?:(\d{1,5})H)?(?:(\d{1,6})M)?(?:(\d{1,7})S)?)?$/.exec(text.trim());
  if (!iso || text.trim() === 'P' || text.trim().endsWith('T')) return undefined;
  const [, d = '0', h = '0', m = '0', s = '0'] = iso;
  return Number(d) * 86_400 + Number(h) * 3600 + Number(m) * 60 + Number(s) || undefined;
}

function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * `type: oidc`: the browser flow's strategy. Requests carry the `weft_session` cookie made by
 * `/api/auth/callback`; the session is looked up on every request (so logout applies at once on every
 * instance). It also holds the provider's configuration for the login routes: discovered lazily
 * from `discoveryUrl` (plain http is allowed for a loopback provider only, for tests and local
 * development) and retried at most every 30 seconds after a failure.
 */
export class OidcStrategy implements Strategy {
  readonly type = 'oidc';
  readonly name: string;
  /** The strategy's `spec.displayName`, for a login button ("Log in with …"). */
  readonly displayName: string | undefined;
  readonly sessionTtlSeconds: number;
  readonly sessionSecure: boolean;
  readonly redirectUri: string;
  readonly scopes: string;
  private readonly failOpen: boolean;
  private readonly mapping: ClaimMappingSpec;
  private readonly clientId: string;
  private readonly clientSecret: string | undefined;
  private readonly discoveryUrl: URL;
  private configuration: Promise<client.Configuration> | undefined;
  private failedAt = -Infinity;

  constructor(
    definition: AuthStrategyDefinition,
    private readonly pool: Pool,
    private readonly context: ClaimMappingContext & { clock: Clock; secrets: SecretEnvironment },
  ) {
    const oidc = definition.spec.oidc;
    if (!oidc) throw new Error(`AuthStrategy ${definition.name} has no oidc section`);
    this.name = definition.name;
    this.displayName = definition.spec.displayName;
    this.failOpen = definition.spec.revocation?.failOpen ?? false;
    this.mapping = oidc.claimMapping;
    this.clientId = oidc.clientId;
    const secret = resolveClientSecret(oidc, context.secrets);
    if (!secret.ok) throw new Error(`${secret.problem.path}: ${secret.problem.reason}`);
    this.clientSecret = secret.value;
    this.discoveryUrl = new URL(oidc.discoveryUrl);
    this.redirectUri = oidc.redirectUri;
    this.scopes = (oidc.scopes ?? ['openid']).join(' ');
    this.sessionTtlSeconds = parseSessionTtl(oidc.sessionTtl ?? '') ?? defaultSessionTtlSeconds;
    this.sessionSecure = oidc.sessionSecure ?? true;
  }

  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined {
    return cookieValue(credentials.headers, sessionCookieName) === undefined ? absent : undefined;
  }

  async authenticate(credentials: Credentials): Promise<StrategyVerdict> {
    const cookie = cookieValue(credentials.headers, sessionCookieName);
    if (cookie === undefined) return absent;
    const session = await sessionIdentity(this.pool, this.name, cookie, this.context.clock.now());
    if (session === null) return invalid;
    return {
      kind: 'authenticated',
      identity: session.identity,
      strategy: this.name,
      issuedAt: session.createdAt.getTime(),
      failMode: 'NONE',
      failOpen: this.failOpen,
    };
  }

  /** The provider's configuration (discovered once; undefined while the provider is unreachable). */
  async provider(): Promise<client.Configuration | undefined> {
    if (this.configuration === undefined) {
      if (this.context.clock.now().getTime() - this.failedAt < discoveryRetryMilliseconds) return undefined;
      const insecure = this.discoveryUrl.protocol === 'http:' && isLoopback(this.discoveryUrl);
      this.configuration = client.discovery(
        this.discoveryUrl,
        this.clientId,
        undefined,
        this.clientSecret === undefined ? client.None() : client.ClientSecretBasic(this.clientSecret),
        insecure ? { execute: [client.allowInsecureRequests], timeout: 5 } : { timeout: 5 },
      );
    }
    try {
      return await this.configuration;
    } catch {
      this.configuration = undefined;
      this.failedAt = this.context.clock.now().getTime();
      return undefined;
    }
  }

  /** Maps the ID token's claims; null when the actor claim is missing. */
  mapIdentity(claims: Record<string, unknown>): Promise<Identity | null> {
    return mapClaims(this.mapping, claims, this.context);
  }
}
