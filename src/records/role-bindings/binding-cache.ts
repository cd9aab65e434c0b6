import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logging/logger.js';
import { AuthErrors } from '../auth/auth-errors.js';
import type { FailMode } from '../auth/strategies/strategy.js';
import type { Identity } from '../types.js';
import type { RoleBinding } from './role-binding-definition.js';
import type { RevocationStore } from './revocation-store.js';

/** How a request fares against the bindings and the revocation set. */
export type BindingVerdict =
  | { kind: 'allowed'; identity: Identity; failMode: FailMode }
  | { kind: 'revoked'; error: Error }
  | { kind: 'unavailable'; error: Error };

/** Timing of the cache: how often it polls the store and how long a copy stands in for it. */
export interface BindingCacheTiming {
  pollMilliseconds: number;
  graceMilliseconds: number;
}

/**
 * This instance's copy of the role bindings and revocation set, polled from the revocation store
 * (one `GET version` per poll; the hashes only when it moved), so a request is checked without any
 * I/O. A revocation reaches every instance within one poll. When the store stops answering, the copy
 * keeps serving for the grace period with fail mode REDIS_CACHED_ALLOWED; after that (or before any
 * successful read) requests fail with 503 REVOCATION_UNAVAILABLE, unless their strategy says
 * `revocation.failOpen: true` (fail mode REVOCATION_FAIL_OPEN).
 */
export class BindingCache {
  private bindings = new Map<string, RoleBinding[]>();
  private revoked = new Map<string, number>();
  private version: string | undefined;
  private syncedAt = -Infinity;
  private lastFailed = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly store: RevocationStore,
    private readonly clock: Clock,
    private readonly timing: BindingCacheTiming,
    private readonly logger: Logger,
    /** Runs before each poll (the owner retries a publish that failed). */
    private readonly beforePoll: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Polls now and then every `pollMilliseconds`. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.timing.pollMilliseconds);
    this.timer.unref();
  }

  /** Reads the store now (tests and the instance that just published call this). */
  poll(): Promise<void> {
    // A poll asked for while one runs reads again after it (the caller may have just published).
    this.queued ??= (this.polling ?? Promise.resolve()).then(() => {
      this.queued = undefined;
      this.polling = this.read().finally(() => {
        this.polling = undefined;
      });
      return this.polling;
    });
    return this.queued;
  }

  private async read(): Promise<void> {
    await this.beforePoll().catch(() => undefined);
    try {
      const version = await this.store.version();
      if (version !== this.version) {
        const state = await this.store.read();
        this.bindings = state.bindings;
        this.revoked = state.revoked;
        this.version = state.version;
      }
      this.syncedAt = this.clock.now().getTime();
      if (this.lastFailed) this.logger.info('the revocation store answers again');
      this.lastFailed = false;
    } catch (error) {
      if (!this.lastFailed)
        this.logger.warn({ err: (error as Error).message }, 'the revocation store does not answer');
      this.lastFailed = true;
    }
  }

  /**
   * Checks `identity` (whose credential was issued at `issuedAt` ms) and adds its live bindings'
   * roles, scope and attributes; synchronous.
   */
  check(identity: Identity, issuedAt: number, failOpen: boolean): BindingVerdict {
    const now = this.clock.now().getTime();
    let failMode: FailMode = 'NONE';
    if (this.store.shared) {
      if (now - this.syncedAt > this.timing.graceMilliseconds) {
        if (!failOpen) return { kind: 'unavailable', error: AuthErrors.revocationUnavailable() };
        failMode = 'REVOCATION_FAIL_OPEN';
      } else if (this.lastFailed) failMode = 'REDIS_CACHED_ALLOWED';
    }
    const revokedAt = this.revoked.get(identity.actor_id);
    if (revokedAt !== undefined && issuedAt <= revokedAt)
      return { kind: 'revoked', error: AuthErrors.revoked() };
    const bound = this.bindings.get(identity.actor_id);
    if (bound === undefined) return { kind: 'allowed', identity, failMode };
    return { kind: 'allowed', identity: withBindings(identity, bound, now), failMode };
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The identity plus the roles, scope and attributes of its unexpired bindings (bindings win on names). */
export function withBindings(identity: Identity, bindings: readonly RoleBinding[], now: number): Identity {
  const live = bindings.filter((binding) => binding.expiresAt === null || binding.expiresAt > now);
  if (live.length === 0) return identity;
  const roles = new Set(identity.roles);
  const attributes = { ...identity.attributes };
  const scope: Record<string, unknown> = { ...identity.scope };
  for (const binding of live) {
    for (const role of binding.roles) roles.add(role);
    Object.assign(attributes, binding.attributes);
    Object.assign(scope, binding.scope);
  }
  return {
    ...identity,
    roles: [...roles],
    attributes,
    ...(Object.keys(scope).length > 0 ? { scope } : {}),
  };
}
