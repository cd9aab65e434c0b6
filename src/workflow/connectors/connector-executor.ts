import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import { isGoneOrConflict } from '../engine/driver/driver-errors.js';
import { isEnded, readInstance } from '../engine/store/process-instances.js';
import type { EngineEvent } from '../engine/runtime/index.js';
import { JobExecutor, type RunResult } from '../../platform/jobs/job-executor.js';
import {
  claimDueConnectorJobs,
  deleteConnectorJob,
  recordConnectorFailure,
  type ConnectorJob,
} from '../engine/store/connector-jobs.js';
import { httpConnectorElementName } from './http-connector-element.js';
import { runHttpConnector, type HttpConnectorRunDeps } from './http-connector-run.js';

/** What the connector executors need. */
export interface ConnectorExecutorOptions extends HttpConnectorRunDeps {
  pool: Pool;
  clock: Clock;
  driver: InstanceDriver;
  logger: Logger;
  /** Jobs run at once: one executor (and one pooled connection while it sends) each. */
  concurrency: number;
  pollIntervalMs?: number;
}

/** The connector executors of one service instance. */
export interface ConnectorExecutors {
  /** Runs the jobs due now, one batch per executor (tests call it after moving the clock). */
  runOnce(): Promise<RunResult>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Executors over `connector_jobs`, on every service instance (not only the leader): each claims one
 * due job with FOR UPDATE SKIP LOCKED, sends its request and answers its wait in the same
 * transaction, so a job is never answered twice. A failed attempt is retried after the backoff the
 * model gives; the last one raises an incident. The connection is held while the request runs,
 * which the request's timeout bounds.
 */
export function createConnectorExecutors(options: ConnectorExecutorOptions): ConnectorExecutors {
  const { driver } = options;
  // The wait closed or the instance ended meanwhile: there is nothing left to answer.
  const answer = async (job: ConnectorJob, event: EngineEvent, client: PoolClient) => {
    try {
      await driver.apply(job.processInstanceId, event, undefined, client);
    } catch (error) {
      if (isGoneOrConflict(error)) return;
      throw error;
    }
  };
  const executors = Array.from(
    { length: options.concurrency },
    (_, index) =>
      new JobExecutor<ConnectorJob>({
        name: `connectors-${index}`,
        pool: options.pool,
        clock: options.clock,
        batchSize: 1,
        pollIntervalMs: options.pollIntervalMs,
        logger: options.logger,
        fetch: (client, now, limit) => claimDueConnectorJobs(client, now, limit),
        handle: async (job, client) => {
          const stored = await readInstance(client, job.processInstanceId);
          const wait =
            stored && !isEnded(stored.record.state) ? stored.engineState.waits[job.waitId] : undefined;
          if (wait?.kind !== 'script') return;
          if (job.connector !== httpConnectorElementName) {
            const message = `no connector runs <weft:${job.connector}> of '${job.elementId}'`;
            await answer(job, { type: 'fail', waitId: job.waitId, message }, client);
            return;
          }
          const outcome = await runHttpConnector(
            options,
            { orgId: job.orgId, instanceId: job.processInstanceId, elementId: job.elementId },
            wait,
          );
          const event: EngineEvent =
            outcome.kind === 'complete'
              ? { type: 'complete', waitId: job.waitId, variables: outcome.variables }
              : { type: 'fail', waitId: job.waitId, message: outcome.message };
          await answer(job, event, client);
        },
        complete: (job, client) => deleteConnectorJob(client, job.id),
        fail: (job, message, client, now, keepOne) =>
          recordConnectorFailure(client, job.id, message, now, keepOne),
        onError: async (job, error, client) => {
          const reason = error instanceof Error ? error.message : String(error);
          const attempts = job.attempts + 1;
          const message = `${reason} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`;
          await answer(job, { type: 'fail', waitId: job.waitId, message }, client);
        },
      }),
  );
  return {
    runOnce: async () => {
      const results = await Promise.all(executors.map((executor) => executor.runOnce()));
      return results.reduce(
        (sum, result) => ({
          claimed: sum.claimed + result.claimed,
          fired: sum.fired + result.fired,
          failed: sum.failed + result.failed,
        }),
        { claimed: 0, fired: 0, failed: 0 },
      );
    },
    start: () => {
      for (const executor of executors) executor.start();
    },
    stop: async () => {
      await Promise.all(executors.map((executor) => executor.stop()));
    },
  };
}
