import { Redis } from 'ioredis';
import { requestPathRedisOptions } from '../../platform/redis/request-path-options.js';
import type { RoleBinding } from './role-binding-definition.js';
import type { BindingState } from './role-binding-repository.js';

/**
 * Where every instance finds the role bindings and the revocation set: Redis when `REDIS_URL` is set
 * (shared by every instance), this process otherwise (single instance only). Postgres holds the
 * durable truth; the store mirrors it so a request never waits on Postgres for it.
 */
export interface RevocationStore {
  /** True when every instance shares this store (Redis). */
  readonly shared: boolean;
  /** Replaces the mirrored state and raises its version. */
  publish(state: BindingState): Promise<void>;
  /** The state's version; changes on every publish. */
  version(): Promise<string>;
  /** The whole state. */
  read(): Promise<BindingState & { version: string }>;
  close(): Promise<void>;
}

/** An in-process store (no REDIS_URL). */
export class MemoryRevocationStore implements RevocationStore {
  readonly shared = false;
  private state: BindingState = { bindings: new Map(), revoked: new Map() };
  private counter = 0;

  publish(state: BindingState): Promise<void> {
    this.state = state;
    this.counter += 1;
    return Promise.resolve();
  }

  version(): Promise<string> {
    return Promise.resolve(String(this.counter));
  }

  read(): Promise<BindingState & { version: string }> {
    return Promise.resolve({ ...this.state, version: String(this.counter) });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Redis hashes under `weft:records:<database>:` — `bindings` (actor → JSON list), `revoked`
 * (actor → ms) — and a `version` counter, written in one MULTI. The database name keeps services
 * on different databases (and parallel test runs) apart on one Redis.
 */
export class RedisRevocationStore implements RevocationStore {
  readonly shared = true;
  private readonly redis: Redis;
  private readonly prefix: string;

  /** `commandTimeoutMs` bounds every read and publish, so a silent Redis costs a failed poll, not a hung one. */
  constructor(url: string, namespace: string, onError: (error: Error) => void, commandTimeoutMs: number) {
    this.redis = new Redis(url, requestPathRedisOptions(commandTimeoutMs));
    this.redis.on('error', onError);
    this.prefix = `weft:records:${namespace}:`;
  }

  async publish(state: BindingState): Promise<void> {
    const bindings = [...state.bindings].flatMap(([actor, list]) => [actor, JSON.stringify(list)]);
    const revoked = [...state.revoked].flatMap(([actor, at]) => [actor, String(at)]);
    const multi = this.redis.multi().del(`${this.prefix}bindings`, `${this.prefix}revoked`);
    if (bindings.length > 0) multi.hset(`${this.prefix}bindings`, ...bindings);
    if (revoked.length > 0) multi.hset(`${this.prefix}revoked`, ...revoked);
    await multi.incr(`${this.prefix}version`).exec();
  }

  async version(): Promise<string> {
    return (await this.redis.get(`${this.prefix}version`)) ?? '0';
  }

  async read(): Promise<BindingState & { version: string }> {
    const [version, bindings, revoked] = await Promise.all([
      this.version(),
      this.redis.hgetall(`${this.prefix}bindings`),
      this.redis.hgetall(`${this.prefix}revoked`),
    ]);
    return {
      version,
      bindings: new Map(
        Object.entries(bindings).map(([actor, json]) => [actor, JSON.parse(json) as RoleBinding[]]),
      ),
      revoked: new Map(Object.entries(revoked).map(([actor, at]) => [actor, Number(at)])),
    };
  }

  close(): Promise<void> {
    this.redis.disconnect();
    return Promise.resolve();
  }
}
