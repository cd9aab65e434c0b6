import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { JobExecutor } from '../../platform/jobs/job-executor.js';
import { isGoneOrConflict } from './driver/driver-errors.js';
import type { InstanceDriver } from './driver/instance-driver.js';
import type { EngineEvent } from './runtime/index.js';
import {
  claimDueContinuationJobs,
  deleteContinuationJob,
  nextContinuationDue,
  recordContinuationFailure,
  type ContinuationJob,
} from './store/continuation-jobs.js';

/** What the continuation executor needs. */
export interface ContinuationExecutorOptions {
  pool: Pool;
  clock: Clock;
  driver: InstanceDriver;
  logger?: Logger;
  pollIntervalMs?: number;
}

/** A continuation's call would raise an incident while the job has attempts left. */
class ContinuationFailed extends Error {}

/**
 * The executor of `continuation_jobs`, on every service instance (not only the leader): claims due
 * jobs with FOR UPDATE SKIP LOCKED and goes on with each instance, in the job's savepoint of the
 * batch's transaction. A call that would raise an incident writes nothing while the job has
 * attempts left: the attempt fails and the job comes back after the element's retry interval, as
 * Camunda 7 rolls a failed job back. The last attempt writes the call, incident included.
 */
export function createContinuationExecutor(
  options: ContinuationExecutorOptions,
): JobExecutor<ContinuationJob> {
  const { driver } = options;
  const resume = (job: ContinuationJob): EngineEvent => ({ type: 'complete', waitId: job.waitId });
  return new JobExecutor<ContinuationJob>({
    name: 'continuations',
    pool: options.pool,
    clock: options.clock,
    logger: options.logger,
    pollIntervalMs: options.pollIntervalMs,
    savepoints: 'always',
    fetch: (client, now, limit) => claimDueContinuationJobs(client, now, limit),
    nextDue: (client, now) => nextContinuationDue(client, now),
    handle: async (job, client) => {
      try {
        if (job.retries <= 1) {
          await driver.apply(job.processInstanceId, resume(job), undefined, client);
          return;
        }
        const outcome = await driver.applyUnlessIncident(job.processInstanceId, resume(job), client);
        if ('incident' in outcome) throw new ContinuationFailed(outcome.incident);
      } catch (error) {
        // The wait closed or the instance ended meanwhile: there is nothing left to go on with.
        if (isGoneOrConflict(error)) return;
        throw error;
      }
    },
    complete: (job, client) => deleteContinuationJob(client, job.id),
    fail: (job, message, client, now, keepOne) =>
      recordContinuationFailure(client, job.id, message, now, keepOne),
    // Out of attempts for a reason outside the model (the database, a bug): an incident on the
    // element, whose retry opens the job again.
    onError: async (job, error, client) => {
      const message = error instanceof Error ? error.message : String(error);
      try {
        await driver.apply(
          job.processInstanceId,
          { type: 'fail', waitId: job.waitId, message },
          undefined,
          client,
        );
      } catch (failure) {
        if (!isGoneOrConflict(failure)) throw failure;
      }
    },
  });
}
