import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';
import {
  acquireLeaderLease,
  ensureLeaderLease,
  releaseLeaderLease,
  renewLeaderLease,
  type LeaseToken,
} from './leader-lease-repository.js';

/** Why leadership ended: the election's connection failed, the lease was lost, or `stop()`. */
export type LostReason = 'connection' | 'lease' | 'stopped';

/** Listeners of a LeaderElection. */
export interface LeaderEvents {
  elected: () => void;
  lost: (reason: LostReason, error?: unknown) => void;
}

/** Options of LeaderElection. */
export interface LeaderElectionOptions {
  connectionString: string;
  /**
   * The leadership's row in `leader_lease` (the workflow service's timer leadership: `timers`); one
   * election per name. `leader` when not given.
   */
  leaseName?: string;
  /** What the leadership is for, in log messages (`timer`: "timer leadership lost"). */
  role?: string;
  /** WORKFLOW_LEADER_LEASE_MS: how long a lease lasts unless renewed (15 s). */
  leaseMs?: number;
  /** WORKFLOW_LEADER_HEARTBEAT_MS: between two renewals of the leader (a third of the lease). */
  heartbeatMs?: number;
  /** Between two attempts of a follower to take the lease (1 s, at most the heartbeat). */
  retryIntervalMs?: number;
  /**
   * How long an instance that lost leadership waits before it competes again (default three retry
   * intervals), so that a healthy instance takes over rather than the one that just failed.
   */
  stepBackAfterLossMs?: number;
  /** This instance's id in the lease row; host, pid and a random suffix by default. */
  holder?: string;
  /** Shown in pg_stat_activity; `weft-leader` when not given. */
  applicationName?: string;
  logger?: Logger;
}

/**
 * Leader election by a lease the database enforces: the row `leaseName` of `leader_lease` names a
 * holder, an epoch and an expiry on the database's clock. A follower tries every `retryIntervalMs`
 * to take the lease (it has expired, or the holder's election connection is gone), which raises the
 * epoch, and emits `elected`. The leader renews it every `heartbeatMs` on its own connection (not a
 * pool's). It emits `lost` when a renewal finds the lease gone (expired or taken over: `lease`),
 * when the lease runs out by this process's clock before a renewal succeeds (`lease`: the process
 * was frozen, or the database is slow), when its connection fails (`connection`), or on `stop()`,
 * which releases the lease. After a loss it steps back for `stepBackAfterLossMs` before competing.
 *
 * The lease token (`lease`) is what the leader's writes are fenced with (`leaseFence`): a leader
 * that lost the lease, whether or not it has noticed, commits nothing.
 */
export class LeaderElection {
  private readonly name: string;
  /** How logs name the leadership: `timer leader`, or `leader`. */
  private readonly role: string;
  private readonly holder: string;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly retryIntervalMs: number;
  private readonly stepBackAfterLossMs: number;
  private competesAgainAt = 0;
  private readonly listeners: { [E in keyof LeaderEvents]: Set<LeaderEvents[E]> } = {
    elected: new Set(),
    lost: new Set(),
  };
  private client: pg.Client | undefined;
  private token: LeaseToken | undefined;
  /** performance.now() after which this process no longer counts on the lease. */
  private validUntil = 0;
  private expiryTimer: NodeJS.Timeout | undefined;
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private attempt: Promise<void> | undefined;
  private warnedUnreachable = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.name = options.leaseName ?? 'leader';
    this.role = options.role === undefined ? 'leader' : `${options.role} leader`;
    this.holder = options.holder ?? `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(this.leaseMs / 3));
    if (!(this.heartbeatMs < this.leaseMs))
      throw new Error(
        `the heartbeat (${this.heartbeatMs} ms) must be shorter than the lease (${this.leaseMs} ms)`,
      );
    this.retryIntervalMs = Math.min(options.retryIntervalMs ?? 1_000, this.heartbeatMs);
    this.stepBackAfterLossMs = options.stepBackAfterLossMs ?? this.retryIntervalMs * 3;
  }

  /** True while this instance holds the lease (as far as it knows; the database has the last word). */
  get isLeader(): boolean {
    return this.token !== undefined;
  }

  /** The lease held now, unexpired by this process's clock; undefined when not leader. */
  get lease(): LeaseToken | undefined {
    return this.token !== undefined && performance.now() < this.validUntil ? this.token : undefined;
  }

  /** How long a lease lasts unless renewed. */
  get leaseDurationMs(): number {
    return this.leaseMs;
  }

  /** The server process id of the election's connection (for tests and operators). */
  get backendPid(): number | undefined {
    return (this.client as { processID?: number } | undefined)?.processID;
  }

  /** Adds a listener; returns a function that removes it. */
  on<E extends keyof LeaderEvents>(event: E, listener: LeaderEvents[E]): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  /** Starts trying to become leader (the first attempt at once). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Releases the lease (emitting `lost` with 'stopped' if leader) and closes the connection. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.attempt;
    const client = this.client;
    this.client = undefined;
    const token = this.token;
    if (client) {
      if (token)
        await releaseLeaderLease(client, token).catch((error: unknown) =>
          this.options.logger?.debug({ err: error }, 'releasing the leader lease failed'),
        );
      await client.end().catch(() => undefined);
    }
    this.lose('stopped');
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.attempt = this.tryOnce().finally(() => {
        this.attempt = undefined;
        this.schedule(this.token ? this.heartbeatMs : this.retryIntervalMs);
      });
    }, delayMs);
  }

  private async tryOnce(): Promise<void> {
    let client = this.client;
    try {
      if (!client) {
        client = await this.connect();
        if (!this.started) {
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        await ensureLeaderLease(client, this.name);
      }
      const sentAt = performance.now();
      if (this.token) {
        const token = this.token;
        const renewed = await renewLeaderLease(client, token, this.leaseMs);
        if (this.token !== token) return;
        if (renewed && performance.now() < sentAt + this.leaseMs) this.hold(token, sentAt);
        else this.leaseLost('the lease expired or another instance took it over');
        return;
      }
      if (Date.now() < this.competesAgainAt) return;
      const token = await acquireLeaderLease(client, this.name, this.holder, this.leaseMs);
      if (!token || this.client !== client || !this.started) return;
      if (performance.now() >= sentAt + this.leaseMs) return;
      this.hold(token, sentAt);
      this.options.logger?.info({ epoch: token.epoch }, `this instance is the ${this.role}`);
      this.emit('elected');
    } catch (error) {
      if (client) this.connectionLost(client, error);
      else if (!this.warnedUnreachable) {
        this.warnedUnreachable = true;
        this.options.logger?.warn(
          { err: error },
          `${this.role} election cannot reach the database; retrying`,
        );
      }
    }
  }

  /** Holds `token` until `leaseMs` after `sentAt` (when the statement that set its expiry was sent). */
  private hold(token: LeaseToken, sentAt: number): void {
    this.token = token;
    this.validUntil = sentAt + this.leaseMs;
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => {
      if (this.token === token && performance.now() >= this.validUntil)
        this.leaseLost('the lease ran out before a renewal succeeded');
    }, this.validUntil - performance.now());
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName ?? 'weft-leader',
      keepAlive: true,
      connectionTimeoutMillis: Math.max(2_000, this.retryIntervalMs * 3),
      // A renewal that gets no answer within a heartbeat fails the connection: the lease would run
      // out while waiting.
      query_timeout: Math.max(1_000, this.heartbeatMs),
    });
    client.on('error', (error) => this.connectionLost(client, error));
    client.on('end', () => this.connectionLost(client, new Error('connection closed')));
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.warnedUnreachable = false;
    return client;
  }

  private leaseLost(why: string): void {
    this.options.logger?.warn({ epoch: this.token?.epoch }, `${this.role}ship lost: ${why}`);
    this.competesAgainAt = Date.now() + this.stepBackAfterLossMs;
    this.lose('lease');
  }

  private connectionLost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.token) {
      this.options.logger?.warn({ err: error }, `${this.role}ship lost with its connection`);
      this.competesAgainAt = Date.now() + this.stepBackAfterLossMs;
    }
    this.lose('connection', error);
  }

  private lose(reason: LostReason, error?: unknown): void {
    clearTimeout(this.expiryTimer);
    if (!this.token) return;
    this.token = undefined;
    this.emit('lost', reason, error);
  }

  private emit(event: keyof LeaderEvents, reason: LostReason = 'stopped', error?: unknown): void {
    for (const listener of this.listeners[event]) {
      try {
        listener(reason, error);
      } catch (listenerError) {
        this.options.logger?.error({ err: listenerError }, 'leader election listener failed');
      }
    }
  }
}
