import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { BindingCache } from '../role-bindings/binding-cache.js';
import { loadBindingState } from '../role-bindings/role-binding-repository.js';
import {
  MemoryRevocationStore,
  RedisRevocationStore,
  type RevocationStore,
} from '../role-bindings/revocation-store.js';
import type { Authenticator } from './authenticator.js';
import { LookupTables } from './claims/lookup-tables.js';
import type { JwtVerifier } from './jwt-verifier.js';
import type { OidcStrategy } from './oidc/oidc-strategy.js';
import type { SecretEnvironment } from './secret-reference.js';
import { buildStrategies, loadStrategyDefinitions } from './strategies/build-strategies.js';
import { DefaultStrategy } from './strategies/default-strategy.js';
import { JwksCache } from './strategies/jwks-cache.js';
import { RequestAuthenticator } from './strategies/request-authenticator.js';
import type { Strategy } from './strategies/strategy.js';

/** Settings of the records authentication (from the records config). */
export interface RecordsAuthOptions {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  redisUrl: string | undefined;
  /** Longest wait for one command of the revocation store. */
  redisCommandTimeoutMs: number;
  trustedProxies: readonly string[];
  revocationPollMilliseconds: number;
  revocationGraceMilliseconds: number;
  /** The environment's JWT settings and API keys, used while no AuthStrategy is declared. */
  fallback: { authenticator: Authenticator; jwt: JwtVerifier };
  /** What `{env: NAME}` secret references of strategies resolve against. */
  secretEnvironment: SecretEnvironment;
  /** Fetch used for key sets (tests may count calls); the global fetch by default. */
  fetcher?: typeof fetch;
}

/**
 * The records service's authentication: the declared strategies (reloaded with the resources), the
 * role bindings and revocation set (Postgres, mirrored to the revocation store, cached per
 * instance) and the request authenticator the HTTP hook uses.
 */
export class RecordsAuth {
  readonly authenticator: RequestAuthenticator;
  readonly bindings: BindingCache;
  private readonly store: RevocationStore;
  private readonly keySets = new Map<string, JwksCache>();
  private readonly lookups: LookupTables;
  private readonly fallback: Strategy[];
  private entry: Strategy[] = [];
  private oidc = new Map<string, OidcStrategy>();
  private publishPending = false;

  private constructor(
    private readonly options: RecordsAuthOptions,
    store: RevocationStore,
  ) {
    this.store = store;
    this.lookups = new LookupTables(options.pool, options.clock);
    this.fallback = [new DefaultStrategy(options.fallback.authenticator, options.fallback.jwt, options.pool)];
    this.entry = this.fallback;
    this.bindings = new BindingCache(
      store,
      options.clock,
      {
        pollMilliseconds: options.revocationPollMilliseconds,
        graceMilliseconds: options.revocationGraceMilliseconds,
      },
      options.logger,
      () => (this.publishPending ? this.mirror() : Promise.resolve()),
    );
    this.authenticator = new RequestAuthenticator(() => this.entry, this.bindings, options.trustedProxies);
  }

  /** Creates the store (Redis when configured, named after the database) and the caches. */
  static async create(options: RecordsAuthOptions): Promise<RecordsAuth> {
    let store: RevocationStore;
    if (options.redisUrl) {
      const { rows } = await options.pool.query<{ name: string }>(`SELECT current_database() AS name`);
      store = new RedisRevocationStore(
        options.redisUrl,
        rows[0]?.name ?? 'records',
        (error) => options.logger.debug({ err: error.message }, 'revocation store connection error'),
        options.redisCommandTimeoutMs,
      );
    } else {
      options.logger.info(
        'REDIS_URL is unset: the revocation set is kept in this process (single instance only)',
      );
      store = new MemoryRevocationStore();
    }
    return new RecordsAuth(options, store);
  }

  /** The declared OIDC strategies by name. */
  oidcStrategies(): ReadonlyMap<string, OidcStrategy> {
    return this.oidc;
  }

  /** Reloads the strategies and the bindings from the database (after any resource change). */
  async reload(): Promise<void> {
    const definitions = await loadStrategyDefinitions(this.options.pool, this.options.logger);
    const built = buildStrategies(definitions, {
      pool: this.options.pool,
      clock: this.options.clock,
      logger: this.options.logger,
      lookups: this.lookups,
      secrets: this.options.secretEnvironment,
      keySets: (url) => {
        let cache = this.keySets.get(url);
        if (!cache) {
          cache = new JwksCache(url, this.options.clock, this.options.fetcher);
          this.keySets.set(url, cache);
        }
        return cache;
      },
    });
    this.entry = built.entry.length > 0 ? built.entry : this.fallback;
    this.oidc = built.oidc;
    await this.publish();
  }

  /**
   * Mirrors the bindings and revocations of Postgres to the revocation store, then re-reads it. When
   * the store is down the publish is retried before each poll until it succeeds.
   */
  async publish(): Promise<void> {
    await this.mirror();
    await this.bindings.poll();
  }

  private async mirror(): Promise<void> {
    try {
      await this.store.publish(await loadBindingState(this.options.pool));
      this.publishPending = false;
    } catch (error) {
      this.publishPending = true;
      this.options.logger.warn(
        { err: (error as Error).message },
        'role bindings not published to the revocation store',
      );
    }
  }

  /** Starts polling the revocation store. */
  start(): Promise<void> {
    return this.bindings.start();
  }

  async close(): Promise<void> {
    this.bindings.close();
    await this.store.close();
  }
}
