import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../../platform/clock.js';

/** How often a key set is fetched again (spec: refreshed every 5 minutes). */
export const jwksRefreshMilliseconds = 5 * 60_000;
/** How long a cached key set may stand in for an unreachable endpoint before tokens are refused. */
export const jwksMaxStaleMilliseconds = 60 * 60_000;
/** Shortest gap between two fetches caused by an unknown key id (forged kids cannot hammer the provider). */
export const jwksCooldownMilliseconds = 30_000;
const fetchTimeoutMilliseconds = 5_000;
const maxBodyBytes = 512 * 1024;

/** The current key set and whether the last attempt to refresh it failed. */
export interface KeySetState {
  getKey: JWTVerifyGetKey;
  /** Raises whenever a fetch brings a different key set (remembered tokens are then re-verified). */
  generation: number;
  /** True when the latest fetch failed and the keys are the cached ones. */
  stale: boolean;
}

/**
 * One issuer's JSON Web Key Set at `url`, cached and refreshed every 5 minutes on use (the clock is
 * injected). The failure table of the spec: endpoint down with a cached set (at most an hour old)
 * → the cached keys verify and `stale` says so (fail mode JWKS_CACHED); nothing cached, or too old →
 * no keys (401). An unknown key id triggers an early fetch, at most once per 30 seconds.
 */
export class JwksCache {
  private keys: JSONWebKeySet | undefined;
  private local: JWTVerifyGetKey | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastFailed = false;
  private generationCount = 0;
  private inFlight: Promise<void> | undefined;

  constructor(
    readonly url: string,
    private readonly clock: Clock,
    private readonly fetcher: typeof fetch = fetch,
  ) {}

  /** The key set usable now without fetching, or undefined when a fetch is due first. */
  currentAtOnce(): KeySetState | undefined {
    const now = this.clock.now().getTime();
    if (this.local === undefined || now - this.attemptedAt >= jwksRefreshMilliseconds) return undefined;
    if (now - this.fetchedAt >= jwksMaxStaleMilliseconds) return undefined;
    return { getKey: this.local, generation: this.generationCount, stale: this.lastFailed };
  }

  /** The key set after refreshing it if due; undefined when there is no usable set. */
  async current(): Promise<KeySetState | undefined> {
    const now = this.clock.now().getTime();
    if (now - this.attemptedAt >= jwksRefreshMilliseconds) await this.refresh();
    return this.usable();
  }

  /** After an unknown key id: fetches again unless a fetch happened in the last 30 seconds. */
  async refreshForUnknownKey(): Promise<KeySetState | undefined> {
    if (this.clock.now().getTime() - this.attemptedAt >= jwksCooldownMilliseconds) await this.refresh();
    return this.usable();
  }

  private usable(): KeySetState | undefined {
    const now = this.clock.now().getTime();
    if (this.local === undefined || now - this.fetchedAt >= jwksMaxStaleMilliseconds) return undefined;
    return { getKey: this.local, generation: this.generationCount, stale: this.lastFailed };
  }

  private refresh(): Promise<void> {
    this.inFlight ??= this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = this.clock.now().getTime();
    try {
      const response = await this.fetcher(this.url, {
        signal: AbortSignal.timeout(fetchTimeoutMilliseconds),
        headers: { accept: 'application/json' },
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`key set answered ${response.status}`);
      const text = await response.text();
      if (text.length > maxBodyBytes) throw new Error('key set too large');
      const body = JSON.parse(text) as JSONWebKeySet;
      if (!Array.isArray(body.keys)) throw new Error('not a key set');
      const local = createLocalJWKSet(body);
      if (JSON.stringify(body) !== JSON.stringify(this.keys)) this.generationCount += 1;
      this.keys = body;
      this.local = local;
      this.fetchedAt = this.clock.now().getTime();
      this.lastFailed = false;
    } catch {
      this.lastFailed = true;
    }
  }
}
