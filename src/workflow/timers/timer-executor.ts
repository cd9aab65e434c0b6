import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { JobExecutor, type JobObserver } from '../../platform/jobs/job-executor.js';
import type { TransactionFence } from '../../platform/jobs/leader-fence.js';
import {
  claimDueTimerJobs,
  completeTimerFiring,
  completeTimerFirings,
  defaultTimerBackoff,
  nextTimerDue,
  recordTimerFailure,
  type TimerBackoff,
  type TimerJob,
} from '../engine/store/timer-jobs.js';

/** What the service (and tests) give to fire timers. */
export interface TimerExecutorOptions {
  pool: Pool;
  clock: Clock;
  /**
   * Fires one timer inside the claim's transaction (the engine: complete the wait, or start an
   * instance for a timer start event). It may delete the timer's row (its wait closed); throwing
   * rolls back its writes and counts as a failed attempt.
   */
  handle: (job: TimerJob, client: PoolClient, now: Date) => Promise<void>;
  /** Fires a whole batch at once (see JobExecutorOptions.handleAll). */
  handleAll?: (jobs: TimerJob[], client: PoolClient, now: Date) => Promise<void>;
  /** Reads what the claimed timers' handlers need in one query (see JobExecutorOptions.prepare). */
  prepare?: (jobs: TimerJob[], client: PoolClient, now: Date) => Promise<void>;
  /** The timer has no retries left (the engine raises an incident), in the same transaction. */
  onError: (job: TimerJob, error: unknown, client: PoolClient, now: Date) => Promise<void>;
  observer?: JobObserver<TimerJob>;
  backoff?: TimerBackoff;
  batchSize?: number;
  concurrency?: number;
  savepoints?: 'always' | 'after-failure';
  pollIntervalMs?: number;
  /** The leader lease's fence on the loops' transactions (see JobExecutorOptions.fence). */
  fence?: TransactionFence;
  logger?: Logger;
}

/** The job executor over `timer_jobs`: fire, then re-arm a cycle or delete; retries with backoff. */
export function createTimerExecutor(options: TimerExecutorOptions): JobExecutor<TimerJob> {
  const backoff = options.backoff ?? defaultTimerBackoff;
  return new JobExecutor<TimerJob>({
    name: 'timers',
    pool: options.pool,
    clock: options.clock,
    fetch: (client, now, limit) => claimDueTimerJobs(client, now, limit),
    nextDue: (client, now) => nextTimerDue(client, now),
    // The batch's statements are planned once per connection: custom plans (PostgreSQL's choice for
    // the engine's writes, whose array parameters a generic plan estimates less well) cost more to
    // make than these index lookups cost to run.
    begin: 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan',
    prepare: options.prepare,
    handle: options.handle,
    handleAll: options.handleAll,
    complete: async (job, client, now) => {
      await completeTimerFiring(client, job, now);
    },
    completeAll: (jobs, client, now) => completeTimerFirings(client, jobs, now),
    fail: (job, message, client, now, keepOne) =>
      recordTimerFailure(client, job, message, now, backoff, keepOne),
    onError: options.onError,
    observer: options.observer,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    savepoints: options.savepoints,
    pollIntervalMs: options.pollIntervalMs,
    fence: options.fence,
    logger: options.logger,
  });
}
