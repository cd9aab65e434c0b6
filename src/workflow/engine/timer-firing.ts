import type { PoolClient } from '../../platform/database/pool.js';
import { ServiceError } from '../../platform/http/service-error.js';
import { isGoneOrConflict } from './driver/driver-errors.js';
import type { EventCondition } from './driver/driver-types.js';
import type { BatchItem, InstanceDriver, StartItem } from './driver/instance-driver.js';
import { findTimerStartTargets, type TimerStartTarget } from './store/process-definitions.js';
import { readInstances, type StoredInstance } from './store/process-instances.js';
import { deleteTimerJob, type TimerJob } from './store/timer-jobs.js';

/** What a fired timer does to the engine, inside the timer claim's transaction. */
export interface TimerFiring {
  prepare: (jobs: TimerJob[], client: PoolClient) => Promise<void>;
  handle: (job: TimerJob, client: PoolClient) => Promise<void>;
  handleAll: (jobs: TimerJob[], client: PoolClient) => Promise<void>;
  onError: (job: TimerJob, error: unknown, client: PoolClient) => Promise<void>;
}

/**
 * Fires timers through the driver. An instance's timer completes its wait; a wait that closed or an
 * instance that ended meanwhile leaves the timer nothing to do. A timer start event starts an
 * instance of its version at that start event, in the claim's transaction, so the firing and the
 * start commit together (never a start without its firing recorded, or the reverse); a version
 * disabled meanwhile is skipped and its timer dropped. A batch fires the timers of distinct
 * instances with one write (InstanceDriver.applyAll) and its starts with another
 * (InstanceDriver.startAll); a second timer of an instance already in the batch, and a start whose
 * version is disabled or gone, are handled one by one after them.
 */
export function timerFiring(driver: InstanceDriver): TimerFiring {
  // The instances of a claimed batch, read in one query, by job (each claim makes new job objects,
  // so concurrent batches never see each other's, and nothing outlives its batch).
  const prefetched = new WeakMap<TimerJob, StoredInstance | null>();
  const startTargets = new WeakMap<TimerJob, TimerStartTarget>();
  const handle = async (job: TimerJob, client: PoolClient) => {
    if (job.processInstanceId === null) {
      await startFromTimer(driver, job, client);
      return;
    }
    if (job.waitId === null) return;
    try {
      await driver.apply(
        job.processInstanceId,
        { type: 'complete', waitId: job.waitId },
        readBefore(prefetched.get(job)),
        client,
      );
    } catch (error) {
      if (!isNothingLeftToDo(error)) throw error;
    }
  };
  return {
    prepare: async (jobs, client) => {
      const ids = jobs.flatMap((job) => (job.processInstanceId === null ? [] : [job.processInstanceId]));
      if (ids.length > 0) {
        const byId = new Map((await readInstances(client, ids)).map((stored) => [stored.record.id, stored]));
        for (const job of jobs)
          if (job.processInstanceId !== null) prefetched.set(job, byId.get(job.processInstanceId) ?? null);
      }
      const definitionIds = jobs.flatMap((job) =>
        job.processInstanceId === null && job.definitionId !== null ? [job.definitionId] : [],
      );
      if (definitionIds.length > 0) {
        const byId = new Map((await findTimerStartTargets(client, definitionIds)).map((d) => [d.id, d]));
        for (const job of jobs) {
          const target = job.definitionId === null ? undefined : byId.get(job.definitionId);
          if (job.processInstanceId === null && target) startTargets.set(job, target);
        }
      }
    },
    handle,
    handleAll: async (jobs, client) => {
      const together: BatchItem[] = [];
      const starts: StartItem[] = [];
      const oneByOne: TimerJob[] = [];
      const instances = new Set<string>();
      for (const job of jobs) {
        const instanceId = job.processInstanceId;
        const target = startTargets.get(job);
        if (instanceId === null && target && !target.disabled && !target.draft) {
          starts.push({ definition: target, startEventId: job.elementId });
          continue;
        }
        if (instanceId === null || job.waitId === null || instances.has(instanceId)) {
          oneByOne.push(job);
          continue;
        }
        instances.add(instanceId);
        together.push({
          instanceId,
          event: { type: 'complete', waitId: job.waitId },
          stored: prefetched.get(job),
        });
      }
      for (const outcome of await driver.applyAll(together, client))
        if (!outcome.ok && !isNothingLeftToDo(outcome.error)) throw outcome.error;
      // A start that failed rolls the batch back: run one by one, it then fails (and retries) alone.
      for (const outcome of await driver.startAll(starts, client)) if (!outcome.ok) throw outcome.error;
      for (const job of oneByOne) await handle(job, client);
    },
    onError: async (job, error, client) => {
      const cause = error instanceof Error ? error.message : String(error);
      // A timer start has no instance to hold an incident: throwing keeps one retry, so the executor
      // tries again after the longest backoff instead of dropping the start.
      if (job.processInstanceId === null || job.waitId === null)
        throw new Error(`timer start event ${job.elementId} could not start an instance: ${cause}`);
      const message = `timer ${job.elementId} could not fire: ${cause}`;
      await driver.apply(
        job.processInstanceId,
        { type: 'fail', waitId: job.waitId, message },
        undefined,
        client,
      );
    },
  };
}

/**
 * The wait closed or the instance ended in the meantime: the timer has nothing left to do. Losing
 * the race for the instance too often is not that: the firing fails and is retried.
 */
export function isNothingLeftToDo(error: unknown): boolean {
  return (
    isGoneOrConflict(error, { contention: false }) ||
    (error instanceof ServiceError && (error.statusCode === 404 || error.statusCode === 409))
  );
}

/**
 * The instance as the batch read it, for the engine call's first attempt. If it changed since (an
 * earlier timer of the same batch fired on it, an API call), the write's revision guard fails and
 * the driver reads it again, as after any lost race.
 */
function readBefore(stored: StoredInstance | null | undefined): EventCondition | undefined {
  if (stored === undefined) return undefined;
  return { initial: stored, check: () => Promise.resolve(), sql: () => 'TRUE' };
}

async function startFromTimer(driver: InstanceDriver, job: TimerJob, client: PoolClient): Promise<void> {
  if (job.definitionId === null) return;
  const [definition] = await findTimerStartTargets(client, [job.definitionId]);
  if (definition === undefined || definition.disabled || definition.draft) {
    // Disabling deletes the row in its own transaction; this only closes a race with it.
    await deleteTimerJob(client, job.id);
    return;
  }
  await driver.start(definition, { variables: {}, businessKey: null, startEventId: job.elementId }, client);
}
