import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { rollBack, type Pool, type PoolClient } from '../database/pool.js';
import type { Logger } from '../logging/logger.js';
import { isLeaderLeaseLost, type TransactionFence } from './leader-fence.js';

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
  /**
   * The earliest due time strictly after `now` (null: none), asked by an idle loop so it sleeps
   * until then rather than a whole poll interval. Jobs due at `now` are left out: the claim took
   * them, or another loop holds them. Without it an idle loop sleeps the poll interval.
   */
  nextDue?(client: PoolClient, now: Date): Promise<Date | null>;
  /**
   * Reads, in one go, what the claimed jobs' handlers will need (the engine: their instances), so
   * each handler saves a round trip. Runs after the claim, in its transaction; what it reads may be
   * stale by the time a handler runs, which the handler must tolerate.
   */
  prepare?(jobs: J[], client: PoolClient, now: Date): Promise<void>;
  /** Does the job's work (the engine: fire the wait, or start an instance). Throwing fails the attempt. */
  handle(job: J, client: PoolClient, now: Date): Promise<void>;
  /**
   * Does the work of a whole batch at once (the engine: one write for many instances). Used by a
   * batch run without savepoints, instead of `handle` for each job; throwing rolls the batch back
   * and it runs again with savepoints and `handle`.
   */
  handleAll?(jobs: J[], client: PoolClient, now: Date): Promise<void>;
  /** Records success: re-arm or delete. Runs after `handle`, in its savepoint. */
  complete(job: J, client: PoolClient, now: Date): Promise<void>;
  /**
   * Records the success of several jobs at once (fewer statements than `complete` for each). Used by
   * a batch run without savepoints, after all its jobs were handled; `complete` when not given.
   */
  completeAll?(jobs: J[], client: PoolClient, now: Date): Promise<void>;
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
  /**
   * The SQL that opens a batch's transaction; `BEGIN` when not given. The timer executor adds
   * `SET LOCAL` settings in the same message.
   */
  begin?: string;
  /**
   * Fences the transactions of the loops `start()` runs (the timer leader's lease): each checks the
   * lease after BEGIN and again in the message that commits, so a loop of a leader that lost its
   * lease commits nothing. `runOnce()` (tests, by hand) is not fenced.
   */
  fence?: TransactionFence;
  /** Jobs per transaction; 10 when not given. */
  batchSize?: number;
  /**
   * `always` (the default): each job runs in a savepoint, so a failure rolls back only its own
   * writes. `after-failure`: a batch first runs without savepoints (two round trips fewer per job);
   * if any job fails, the whole transaction is rolled back and the batch is claimed again and run
   * with savepoints. `handle` may then be called twice for a job whose first run was rolled back,
   * so whatever it does outside the transaction must tolerate that.
   */
  savepoints?: 'always' | 'after-failure';
  /**
   * Claim loops `start()` runs side by side, each with its own transaction (and so its own pool
   * connection); SKIP LOCKED keeps their batches apart. 1 when not given.
   */
  concurrency?: number;
  /**
   * Longest real-time pause of an idle loop: it wakes at the next due time (`nextDue`), at a
   * `nudge()`, or after this long, whichever comes first (a job armed by another process may be due
   * sooner than anything this loop saw); 1,000 ms when not given.
   */
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

/** A job failed in a batch run without savepoints: the batch was rolled back, to be run with them. */
class BatchRolledBack extends Error {}

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
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private loops: Promise<void>[] | undefined;
  private abort: AbortController | undefined;
  // Bumped by start() and stop(): a loop or batch of an older generation ends at its next check.
  private generation = 0;

  constructor(private readonly options: JobExecutorOptions<J>) {
    this.batchSize = options.batchSize ?? 10;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  /** True between `start()` and `stop()`. */
  get running(): boolean {
    return this.loops !== undefined;
  }

  /**
   * Claims one batch of due jobs and handles them in one transaction. A stop requested meanwhile
   * leaves the rest of the batch untouched (unlocked at commit, still due).
   */
  async runOnce(): Promise<RunResult> {
    return (await this.batch(false, false)).result;
  }

  private async batch(
    askNextDue: boolean,
    fenced: boolean,
  ): Promise<{ result: RunResult; nextDue?: Date | null }> {
    if (this.options.savepoints === 'after-failure') {
      const outcome = await this.runBatch(askNextDue, false, fenced);
      if (outcome !== undefined) return outcome;
    }
    return (await this.runBatch(askNextDue, true, fenced)) ?? { result: { claimed: 0, fired: 0, failed: 0 } };
  }

  /**
   * One batch; with `askNextDue`, a batch that was not full also reads the next due time in its
   * transaction (for the loop's sleep; undefined when not asked or `nextDue` is not given). Without
   * `savepoints`, a failing job rolls the whole batch back and the result is undefined. `fenced`
   * checks the fence (if any) at BEGIN and at COMMIT.
   */
  private async runBatch(
    askNextDue: boolean,
    savepoints: boolean,
    fenced: boolean,
  ): Promise<{ result: RunResult; nextDue?: Date | null } | undefined> {
    const { pool, clock, observer } = this.options;
    const result: RunResult = { claimed: 0, fired: 0, failed: 0 };
    let nextDue: Date | null | undefined;
    const reports: (() => void)[] = [];
    // Handled without savepoints, to be completed together.
    const handled: J[] = [];
    const generation = this.generation;
    const fence = fenced ? this.options.fence?.open() : undefined;
    const begin = this.options.begin ?? 'BEGIN';
    const client = await pool.connect();
    // Set when the connection cannot be trusted any more: the pool then discards it.
    let broken: Error | undefined;
    try {
      await client.query(fence ? `${begin}; ${fence.check}` : begin);
      const claimedAt = clock.now();
      const jobs = await this.options.fetch(client, claimedAt, this.batchSize);
      result.claimed = jobs.length;
      if (jobs.length > 0) await this.options.prepare?.(jobs, client, clock.now());
      const batchHandled = !savepoints && this.options.handleAll !== undefined && jobs.length > 0;
      if (batchHandled && this.generation === generation) {
        const now = clock.now();
        try {
          await this.options.handleAll?.(jobs, client, now);
          if (!this.options.completeAll)
            for (const job of jobs) await this.options.complete(job, client, now);
        } catch (error) {
          throw new BatchRolledBack(messageOf(error), { cause: error });
        }
        handled.push(...jobs);
        for (const job of jobs) reports.push(() => observer?.fired?.(job, now));
      }
      for (const job of batchHandled ? [] : jobs) {
        if (this.generation !== generation) break;
        const now = clock.now();
        if (!savepoints) {
          try {
            await this.options.handle(job, client, now);
            if (!this.options.completeAll) await this.options.complete(job, client, now);
          } catch (error) {
            throw new BatchRolledBack(messageOf(error), { cause: error });
          }
          handled.push(job);
          reports.push(() => observer?.fired?.(job, now));
          continue;
        }
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
      if (handled.length > 0 && this.options.completeAll) {
        try {
          await this.options.completeAll(handled, client, clock.now());
        } catch (error) {
          throw new BatchRolledBack(messageOf(error), { cause: error });
        }
      }
      result.fired += handled.length;
      // Asked as of the claim: a job that fell due while the batch ran is the next due time (already
      // past, so the loop goes on at once) rather than being skipped until the poll interval.
      if (askNextDue && jobs.length < this.batchSize && this.options.nextDue)
        nextDue = await this.options.nextDue(client, claimedAt);
      await client.query(fence ? fence.commit : 'COMMIT');
    } catch (error) {
      broken = await rollBack(client, error instanceof BatchRolledBack ? error.cause : error);
      if (!(error instanceof BatchRolledBack)) throw error;
      this.options.logger?.debug(
        { err: error.cause, executor: this.options.name },
        'a job failed; its batch runs again with savepoints',
      );
      return undefined;
    } finally {
      client.release(broken);
    }
    for (const report of reports) report();
    return { result, nextDue };
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

  /**
   * Starts `concurrency` claim loops. A loop whose batch was full claims again at once; otherwise it
   * sleeps until the next due time, a `nudge()`, or the poll interval, whichever comes first.
   */
  start(): void {
    if (this.loops) throw new Error(`${this.options.name} executor is already running`);
    const generation = ++this.generation;
    this.abort = new AbortController();
    this.loops = Array.from({ length: this.concurrency }, () => this.loop(generation));
  }

  private async loop(generation: number): Promise<void> {
    while (this.generation === generation) {
      // Taken before the batch, so a nudge that comes while it runs cuts the next pause short.
      const signal = this.abort?.signal;
      let pauseMs = this.pollIntervalMs;
      try {
        const { result, nextDue } = await this.batch(true, true);
        if (result.claimed === this.batchSize) pauseMs = 0;
        else if (nextDue)
          pauseMs = Math.min(pauseMs, Math.max(0, nextDue.getTime() - this.options.clock.now().getTime()));
      } catch (error) {
        if (isLeaderLeaseLost(error))
          this.options.logger?.info(
            { executor: this.options.name },
            'the leader lease is lost; the batch was rolled back',
          );
        else this.options.logger?.warn({ err: error, executor: this.options.name }, 'job batch failed');
      }
      if (pauseMs > 0 && this.generation === generation)
        await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Ends the current pause of every loop at once (new work may be due sooner than they planned). */
  nudge(): void {
    const abort = this.abort;
    if (!abort || !this.loops) return;
    this.abort = new AbortController();
    abort.abort();
  }

  /**
   * Stops at once: no job is handled after this call returns (the one being handled in each loop
   * finishes and commits with those before it). The promise settles when every loop has ended.
   */
  async stop(): Promise<void> {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    const loops = this.loops;
    this.loops = undefined;
    await Promise.all(loops ?? []);
  }
}
