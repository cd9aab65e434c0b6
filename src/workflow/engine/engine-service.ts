import type { Registry } from 'prom-client';
import type { Clock } from '../../platform/clock.js';
import type { WorkflowConfig } from '../../platform/config/index.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { DeploymentService } from '../deployments/deployment-service.js';
import { ModelCache } from '../deployments/model-cache.js';
import { ExternalTaskService } from '../external-tasks/external-task-service.js';
import { TaskNotifier } from '../external-tasks/task-notifier.js';
import { InstanceService } from '../instances/instance-service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import { UserTaskService } from '../user-tasks/user-task-service.js';
import { FormService } from '../forms/form-service.js';
import { EngineMetrics } from './driver/engine-metrics.js';
import { combineImmediateWork, type ImmediateWork } from './driver/immediate-work.js';
import { InstanceDriver } from './driver/instance-driver.js';
import { createContinuationExecutor } from './continuation-executor.js';
import type { ExtensionSpec } from './model/index.js';
import { createMessagingServices } from '../events/messaging.js';
import type { MessageService } from '../events/message-service.js';
import { sendTaskWork } from '../events/send-work.js';
import type { SignalService } from '../events/signal-service.js';
import { timerFiring } from './timer-firing.js';
import { leaseFence } from '../../platform/jobs/leader-fence.js';
import { runWhileLeader } from '../../platform/jobs/leader-duties.js';
import { Housekeeping, type HousekeepingResult } from '../timers/housekeeping.js';
import { createTimerExecutor } from '../timers/timer-executor.js';
import { timerExecutorSizing } from '../timers/timer-executor-sizing.js';
import { timerLeaderElection } from '../timers/timer-leader.js';
import { TimerMetrics } from '../timers/timer-metrics.js';
import { createBatchExecutor } from '../batches/batch-executor.js';
import { BatchService } from '../batches/batch-service.js';
import { builtInOperations } from '../batches/built-in-operations.js';
import { MigrationService } from '../instance-migration/migration-service.js';
import { InstanceMigrator } from './driver/instance-migration.js';

/** What the engine's services need. */
export interface EngineDependencies {
  pool: Pool;
  /** The owner login's pool: history and instance retention delete what the runtime login may only append. */
  ownerPool?: Pool;
  clock: Clock;
  metrics: Registry;
  logger: Logger;
  databaseUrl: string;
  config: WorkflowConfig;
  /** Work done at once inside an engine call (script pipelines, decisions), by extension. */
  immediate?: ImmediateWork[];
  /** Weft BPMN extension elements the compiler accepts, by local name. */
  extensions?: Record<string, ExtensionSpec>;
  /**
   * False: never take part in the timer leadership, and do not poll the thrown-event outbox (tests
   * that fire timers and deliver parked outbox rows by hand). Default true.
   */
  timerLeader?: boolean;
}

/** The engine's services, built once per workflow service. */
export interface Engine {
  deployments: DeploymentService;
  instances: InstanceService;
  externalTasks: ExternalTaskService;
  userTasks: UserTaskService;
  messages: MessageService;
  signals: SignalService;
  /** Runs starts, messages and signals under their Idempotency-Key. */
  idempotency: IdempotentRequests;
  driver: InstanceDriver;
  /** Camunda Forms deployed alongside BPMN, and the form of a task or start event. */
  forms: FormService;
  /** The deployed models, by definition id (what the Camunda API reads extension properties from). */
  models: ModelCache;
  /** Migration plans and the migration of one instance. */
  migrations: MigrationService;
  /** Batches over selections of instances. */
  batches: BatchService;
  /** Runs one chunk of pending batch items now (every instance runs them on its own; tests call it by hand). */
  batchRuns: { runOnce(): Promise<{ claimed: number; fired: number; failed: number }> };
  /** Runs the continuation jobs due now (every instance runs them on its own; tests call it by hand). */
  continuations: { runOnce(): Promise<{ claimed: number; fired: number; failed: number }> };
  /** Fires the timers due now (the leader does this on its own; tests call it with a moved clock). */
  timers: { runOnce(): Promise<{ claimed: number; fired: number; failed: number }> };
  /** Delivers due thrown-event outbox rows now (every instance polls them; tests call it by hand). */
  outbox: { runOnce(): Promise<{ claimed: number; fired: number; failed: number }> };
  /** Deletes the history (and instances) past retention now (the leader does this hourly; tests call it with a moved clock). */
  housekeeping: { runOnce(): Promise<HousekeepingResult> };
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Wires the deployment, instance, external task and user task services around one driver. */
export function createEngine(deps: EngineDependencies): Engine {
  const metrics = new EngineMetrics(deps.metrics);
  const models = new ModelCache(deps.pool);
  const notifier = new TaskNotifier(deps.databaseUrl, deps.pool, deps.logger);
  // The executor needs the driver; the driver wakes the executor when it writes continuation jobs.
  const wake = { continuations: (): void => undefined };
  const driver = new InstanceDriver({
    continuationsDue: () => wake.continuations(),
    pool: deps.pool,
    announcer: notifier,
    models,
    immediate: combineImmediateWork([...(deps.immediate ?? []), sendTaskWork]),
    clock: deps.clock,
    metrics,
    maxStepsPerCall: deps.config.engineMaxSteps,
    maxMultiInstance: deps.config.engineMaxMultiInstance,
  });
  const continuations = createContinuationExecutor({
    pool: deps.pool,
    clock: deps.clock,
    driver,
    logger: deps.logger,
  });
  wake.continuations = () => continuations.nudge();
  const events = createMessagingServices({ ...deps, driver, models });
  const timerMetrics = new TimerMetrics(deps.metrics);
  const firing = timerFiring(driver);
  const election = timerLeaderElection({
    connectionString: deps.databaseUrl,
    leaseMs: deps.config.leaderLeaseMs,
    heartbeatMs: deps.config.leaderHeartbeatMs,
    logger: deps.logger,
  });
  // The leader's loops commit only while its lease holds, at the epoch they started under.
  const fence = leaseFence(() => election.lease, election.leaseDurationMs);
  const timers = createTimerExecutor({
    pool: deps.pool,
    clock: deps.clock,
    logger: deps.logger,
    observer: timerMetrics,
    ...timerExecutorSizing(deps.pool.options.max ?? 10),
    prepare: firing.prepare,
    handle: firing.handle,
    handleAll: firing.handleAll,
    onError: firing.onError,
    fence,
  });
  const housekeeping = new Housekeeping({
    pool: deps.ownerPool ?? deps.pool,
    clock: deps.clock,
    retentionDays: deps.config.historyRetentionDays,
    instanceRetentionDays: deps.config.instanceRetentionDays,
    fence,
    logger: deps.logger,
  });
  const migrator = new InstanceMigrator({
    models,
    clock: deps.clock,
    maxStepsPerCall: deps.config.engineMaxSteps,
    maxMultiInstance: deps.config.engineMaxMultiInstance,
    announce: (db, instance, written) => driver.announceWrite(db, instance, written),
  });
  const migrations = new MigrationService(deps.pool, models, migrator);
  // Batch types are one registered per-item operation each (suspend, resume, modify… are added here).
  const operations = builtInOperations(driver, migrations);
  const batchRuns = createBatchExecutor({
    pool: deps.pool,
    clock: deps.clock,
    operations,
    logger: deps.logger,
  });
  const forms = new FormService(deps.pool);
  let stopDuties: (() => Promise<void>) | undefined;
  return {
    deployments: new DeploymentService(deps.pool, models, deps.extensions ?? {}, deps.clock, forms),
    instances: new InstanceService(deps.pool, driver, deps.clock),
    externalTasks: new ExternalTaskService(deps.pool, driver, notifier, deps.clock, metrics),
    userTasks: new UserTaskService(deps.pool, driver, metrics, models, forms),
    forms,
    messages: events.messages,
    signals: events.signals,
    idempotency: new IdempotentRequests(deps.pool, deps.logger),
    driver,
    models,
    migrations,
    batches: new BatchService(deps.pool, operations, deps.clock, batchRuns, deps.config.batchMaxItems),
    batchRuns,
    continuations,
    timers,
    housekeeping,
    outbox: events.outbox,
    start: async () => {
      await notifier.start();
      // Exactly one instance of the service, the holder of the leader lease, fires timers.
      if (deps.timerLeader === false) return;
      // Every instance delivers thrown events (the outbox is not a leader duty).
      await events.outboxListener.start();
      events.outbox.start();
      // Every instance runs batch items too: SKIP LOCKED keeps their chunks apart.
      batchRuns.start();
      // Every instance runs continuation jobs: SKIP LOCKED keeps them apart.
      continuations.start();
      stopDuties = runWhileLeader(election, [timers, housekeeping], {
        metrics: timerMetrics,
        logger: deps.logger,
      });
      election.start();
    },
    close: async () => {
      await events.outbox.stop();
      await batchRuns.stop();
      await continuations.stop();
      await events.outboxListener.close();
      await stopDuties?.();
      await election.stop();
      await notifier.close();
    },
  };
}
