import pg from 'pg';
import type { Logger } from '../../platform/logging/logger.js';

/** The advisory lock of the timer leadership: the two int4 keys ('weft' in ASCII, then 1). */
export const timerLeaderLockKey: readonly [number, number] = [0x77656674, 1];

/** Why leadership ended. */
export type LostReason = 'connection' | 'stopped';

/** Listeners of a LeaderElection. */
export interface LeaderEvents {
  elected: () => void;
  lost: (reason: LostReason, error?: unknown) => void;
}

/** Options of LeaderElection. */
export interface LeaderElectionOptions {
  connectionString: string;
  /** Another lock key (tests, or two independent leaderships on one database). */
  lockKey?: readonly [number, number];
  /** Between two attempts to take the lock, and between two checks of the connection while leader. */
  retryIntervalMs?: number;
  /**
   * How long an instance that lost leadership with its connection waits before it competes again
   * (default three retry intervals), so that a healthy instance takes over rather than the one
   * whose connection just failed.
   */
  stepBackAfterLossMs?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  logger?: Logger;
}

/**
 * Leader election by a PostgreSQL session advisory lock held on a dedicated connection (not a pool's:
 * a pool would hand the session, and the lock with it, to other work). `start()` tries to take the
 * lock every `retryIntervalMs` until it gets it, then emits `elected`. While leader it checks the
 * connection at the same interval; the moment the connection fails (an error, the server closing
 * it, a check not answered) the election emits `lost` and then reconnects and tries again. The
 * server releases the lock when it sees the session gone, so another instance takes over within
 * about one retry interval of that; the instance that lost steps back for `stepBackAfterLossMs`
 * before it competes again.
 */
export class LeaderElection {
  private readonly key: readonly [number, number];
  private readonly retryIntervalMs: number;
  private readonly stepBackAfterLossMs: number;
  private competesAgainAt = 0;
  private readonly listeners: { [E in keyof LeaderEvents]: Set<LeaderEvents[E]> } = {
    elected: new Set(),
    lost: new Set(),
  };
  private client: pg.Client | undefined;
  private leader = false;
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private attempt: Promise<void> | undefined;
  private warnedUnreachable = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.key = options.lockKey ?? timerLeaderLockKey;
    this.retryIntervalMs = options.retryIntervalMs ?? 1_000;
    this.stepBackAfterLossMs = options.stepBackAfterLossMs ?? this.retryIntervalMs * 3;
  }

  /** True while this instance holds the lock on a live connection. */
  get isLeader(): boolean {
    return this.leader;
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

  /** Releases the lock (emitting `lost` with 'stopped' if leader) and closes the connection. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.attempt;
    const client = this.client;
    this.client = undefined;
    if (client) {
      if (this.leader)
        await client
          .query('SELECT pg_advisory_unlock($1, $2)', [...this.key])
          .catch((error: unknown) => this.options.logger?.debug({ err: error }, 'advisory unlock failed'));
      await client.end().catch(() => undefined);
    }
    this.setLeader(false, 'stopped');
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.attempt = this.tryOnce().finally(() => {
        this.attempt = undefined;
        this.schedule(this.retryIntervalMs);
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
      }
      if (this.leader) {
        await client.query('SELECT 1');
        return;
      }
      if (Date.now() < this.competesAgainAt) return;
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, $2) AS locked',
        [...this.key],
      );
      if (rows[0]?.locked === true && this.client === client && this.started) this.setLeader(true);
    } catch (error) {
      if (client) this.connectionLost(client, error);
      else if (!this.warnedUnreachable) {
        this.warnedUnreachable = true;
        this.options.logger?.warn(
          { err: error },
          'timer leader election cannot reach the database; retrying',
        );
      }
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName ?? 'weft-timer-leader',
      keepAlive: true,
      connectionTimeoutMillis: Math.max(2_000, this.retryIntervalMs * 3),
      query_timeout: Math.max(2_000, this.retryIntervalMs * 3),
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

  private connectionLost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.leader) {
      this.options.logger?.warn({ err: error }, 'timer leadership lost with its connection');
      this.competesAgainAt = Date.now() + this.stepBackAfterLossMs;
    }
    this.setLeader(false, 'connection', error);
  }

  private setLeader(leader: boolean, reason: LostReason = 'stopped', error?: unknown): void {
    if (this.leader === leader) return;
    this.leader = leader;
    if (leader) this.options.logger?.info('this instance is the timer leader');
    for (const listener of leader ? this.listeners.elected : this.listeners.lost) {
      try {
        listener(reason, error);
      } catch (listenerError) {
        this.options.logger?.error({ err: listenerError }, 'leader election listener failed');
      }
    }
  }
}
