import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';

/**
 * Everything a job executor needs, injected so a test can drive it step by step. Every callback
 * that takes a client runs inside the executor's transaction: the job's row lock, the handler's
 * writes and the job's new state commit together or not at all.
 */
export interface JobExecutorOptions<J> {
  /** For logs. */
  name: string;
  pool: Pool;
  clock: Clock;
  /** Locks up to `limit` jobs due at `now` with `FOR UPDATE SKIP LOCKED`. */
  fetch(client: PoolClient, now: Date, limit: number): Promise<J[]>;
  /** Does the job's work (the engine: fire the wait, or start an instance). Throwing fails the attempt. */
  handle(job: J, client: PoolClient, now: Date): Promise<void>;
  /** Records success: re-arm or delete. Runs after `handle`, in its savepoint. */
  complete(job: J, client: PoolClient, now: Date): Promise<void>;
  /**
   * Records a failed attempt (retries − 1, due again after a backoff computed in SQL) and returns
   * the retries left; `keepOne` keeps at least one (see `onError`).
   */
  fail(job: J, message: string, client: PoolClient, now: Date, keepOne: boolean): Promise<number>;
  /**
   * Called when a job has no retries left (the engine raises an incident). If it throws, the
   * failure is recorded again with one retry kept, so the job comes back after the backoff rather
   * than parking without an incident.
   */
  onError(job: J, error: unknown, client: PoolClient, now: Date): Promise<void>;
  /** Told after commit, once per outcome. */
  observer?: JobObserver<J>;
  /** Jobs per transaction; 10 when not given. */
  batchSize?: number;
  /** Real-time pause between polls when nothing is left to do; 1,000 ms when not given. */
  pollIntervalMs?: number;
  logger?: Logger;
}

/** Outcomes reported after commit (for metrics). */
export interface JobObserver<J> {
  fired?(job: J, firedAt: Date): void;
  failed?(job: J, error: unknown, retriesLeft: number): void;
}

/** What one `runOnce` did. */
export interface RunResult {
  claimed: number;
  fired: number;
  failed: number;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A loop that claims due jobs in batches and handles each in a savepoint of the batch's
 * transaction. Two executors on one database never handle the same job: the claim skips rows
 * another transaction has locked, and a handled job is re-armed or deleted before the lock goes.
 */
export class JobExecutor<J> {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private loop: Promise<void> | undefined;
  private abort: AbortController | undefined;
  // Bumped by start() and stop(): a loop or batch of an older generation ends at its next check.
  private generation = 0;

  constructor(private readonly options: JobExecutorOptions<J>) {
    this.batchSize = options.batchSize ?? 10;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  /** True between `start()` and `stop()`. */
  get running(): boolean {
    return this.loop !== undefined;
  }

  /**
   * Claims one batch of due jobs and handles them in one transaction. A stop requested meanwhile
   * leaves the rest of the batch untouched (unlocked at commit, still due).
   */
  async runOnce(): Promise<RunResult> {
    const { pool, clock, observer } = this.options;
    const result: RunResult = { claimed: 0, fired: 0, failed: 0 };
    const reports: (() => void)[] = [];
    const generation = this.generation;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const jobs = await this.options.fetch(client, clock.now(), this.batchSize);
      result.claimed = jobs.length;
      for (const job of jobs) {
        if (this.generation !== generation) break;
        const now = clock.now();
        await client.query('SAVEPOINT job');
        try {
          await this.options.handle(job, client, now);
          await this.options.complete(job, client, now);
          await client.query('RELEASE SAVEPOINT job');
          result.fired++;
          reports.push(() => observer?.fired?.(job, now));
        } catch (error) {
          await client.query('ROLLBACK TO SAVEPOINT job');
          const retriesLeft = await this.failed(job, error, client, now);
          result.failed++;
          reports.push(() => observer?.failed?.(job, error, retriesLeft));
        }
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    for (const report of reports) report();
    return result;
  }

  private async failed(job: J, error: unknown, client: PoolClient, now: Date): Promise<number> {
    const { logger, name } = this.options;
    await client.query('SAVEPOINT failure');
    const retriesLeft = await this.options.fail(job, messageOf(error), client, now, false);
    if (retriesLeft > 0) {
      logger?.warn({ err: error, executor: name, retriesLeft }, 'job failed; it will be retried');
      return retriesLeft;
    }
    try {
      await this.options.onError(job, error, client, now);
      return 0;
    } catch (onErrorFailure) {
      await client.query('ROLLBACK TO SAVEPOINT failure');
      logger?.error(
        { err: onErrorFailure, cause: messageOf(error), executor: name },
        'job out of retries and onError failed; it will be retried',
      );
      return this.options.fail(
        job,
        `${messageOf(error)}; then onError failed: ${messageOf(onErrorFailure)}`,
        client,
        now,
        true,
      );
    }
  }

  /** Starts polling: a full batch is followed at once by the next, otherwise after the poll interval. */
  start(): void {
    if (this.loop) throw new Error(`${this.options.name} executor is already running`);
    const generation = ++this.generation;
    this.abort = new AbortController();
    this.loop = (async () => {
      while (this.generation === generation) {
        let full = false;
        try {
          const { claimed } = await this.runOnce();
          full = claimed === this.batchSize;
        } catch (error) {
          this.options.logger?.warn({ err: error, executor: this.options.name }, 'job batch failed');
        }
        const signal = this.abort?.signal;
        if (!full && this.generation === generation)
          await sleep(this.pollIntervalMs, undefined, { signal }).catch(() => undefined);
      }
    })();
  }

  /** Ends the next poll at once (new work may be due sooner than the poll interval). */
  nudge(): void {
    const abort = this.abort;
    if (!abort || !this.loop) return;
    this.abort = new AbortController();
    abort.abort();
  }

  /**
   * Stops at once: no job is handled after this call returns (the one being handled finishes and
   * commits with those before it). The promise settles when the loop has ended.
   */
  async stop(): Promise<void> {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    const loop = this.loop;
    this.loop = undefined;
    await loop;
  }
}
