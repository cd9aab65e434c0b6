import type { PoolClient } from '../../platform/database/pool.js';
import { ServiceError } from '../../platform/http/service-error.js';
import type { TimerJob } from '../timers/index.js';
import type { EventCondition, InstanceDriver } from './driver/instance-driver.js';
import { readInstances, type StoredInstance } from './driver/instance-repository.js';

/** What a fired timer does to the engine, inside the timer claim's transaction. */
export interface TimerFiring {
  prepare: (jobs: TimerJob[], client: PoolClient) => Promise<void>;
  handle: (job: TimerJob, client: PoolClient) => Promise<void>;
  onError: (job: TimerJob, error: unknown, client: PoolClient) => Promise<void>;
}

interface StartTarget {
  id: string;
  org_id: string;
  process_key: string;
  disabled: boolean;
  draft: boolean;
}

/**
 * Fires timers through the driver. An instance's timer completes its wait; a wait that closed or an
 * instance that ended meanwhile leaves the timer nothing to do. A timer start event starts an
 * instance of its version at that start event, in the claim's transaction, so the firing and the
 * start commit together (never a start without its firing recorded, or the reverse); a version
 * disabled meanwhile is skipped and its timer dropped.
 */
export function timerFiring(driver: InstanceDriver): TimerFiring {
  // The instances of a claimed batch, read in one query, by job (each claim makes new job objects,
  // so concurrent batches never see each other's, and nothing outlives its batch).
  const prefetched = new WeakMap<TimerJob, StoredInstance | null>();
  return {
    prepare: async (jobs, client) => {
      const ids = jobs.flatMap((job) => (job.processInstanceId === null ? [] : [job.processInstanceId]));
      if (ids.length === 0) return;
      const byId = new Map((await readInstances(client, ids)).map((stored) => [stored.record.id, stored]));
      for (const job of jobs)
        if (job.processInstanceId !== null) prefetched.set(job, byId.get(job.processInstanceId) ?? null);
    },
    handle: async (job, client) => {
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
        // The wait closed or the instance ended in the meantime: the timer has nothing left to do.
        if (error instanceof ServiceError && (error.statusCode === 404 || error.statusCode === 409)) return;
        throw error;
      }
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
  const { rows } = await client.query<StartTarget>({
    name: 'workflow.timers.start-target',
    text: 'SELECT id, org_id, process_key, disabled, draft FROM process_definitions WHERE id = $1',
    values: [job.definitionId],
  });
  const definition = rows[0];
  if (definition === undefined || definition.disabled || definition.draft) {
    // Disabling deletes the row in its own transaction; this only closes a race with it.
    await client.query({
      name: 'workflow.timers.delete',
      text: 'DELETE FROM timer_jobs WHERE id = $1',
      values: [job.id],
    });
    return;
  }
  await driver.start(definition, { variables: {}, businessKey: null, startEventId: job.elementId }, client);
}
