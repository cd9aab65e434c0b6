import type { Registry } from 'prom-client';
import type { Clock } from '../../platform/clock.js';
import type { WorkflowConfig } from '../../platform/config/index.js';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Logger } from '../../platform/logging/logger.js';
import { DeploymentService } from '../deployments/deployment-service.js';
import { ModelCache } from '../deployments/model-cache.js';
import { registerDeploymentRoutes } from '../deployments/routes.js';
import { ExternalTaskService } from '../external-tasks/external-task-service.js';
import { registerExternalTaskRoutes } from '../external-tasks/routes.js';
import { TaskNotifier } from '../external-tasks/task-notifier.js';
import { InstanceService } from '../instances/instance-service.js';
import { registerInstanceRoutes } from '../instances/routes.js';
import { registerUserTaskRoutes } from '../user-tasks/routes.js';
import { UserTaskService } from '../user-tasks/user-task-service.js';
import { EngineMetrics } from './driver/engine-metrics.js';
import { combineImmediateWork, type ImmediateWork } from './driver/immediate-work.js';
import { InstanceDriver } from './driver/instance-driver.js';
import type { ExtensionSpec } from './model/index.js';
import { ServiceError } from '../../platform/http/service-error.js';
import { createTimerExecutor, LeaderElection, runWhileLeader, TimerMetrics } from '../timers/index.js';

/** What the engine's services need. */
export interface EngineDependencies {
  pool: Pool;
  clock: Clock;
  metrics: Registry;
  logger: Logger;
  databaseUrl: string;
  config: WorkflowConfig;
  /** Work done at once inside an engine call (script pipelines, decisions), by extension. */
  immediate?: ImmediateWork[];
  /** Weft BPMN extension elements the compiler accepts, by local name. */
  extensions?: Record<string, ExtensionSpec>;
}

/** The engine's services, built once per workflow service. */
export interface Engine {
  deployments: DeploymentService;
  instances: InstanceService;
  externalTasks: ExternalTaskService;
  userTasks: UserTaskService;
  driver: InstanceDriver;
  /** Fires the timers due now (the leader does this on its own; tests call it with a moved clock). */
  timers: { runOnce(): Promise<{ claimed: number; fired: number; failed: number }> };
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Wires the deployment, instance, external task and user task services around one driver. */
export function createEngine(deps: EngineDependencies): Engine {
  const metrics = new EngineMetrics(deps.metrics);
  const models = new ModelCache(deps.pool);
  const notifier = new TaskNotifier(deps.databaseUrl, deps.pool, deps.logger);
  const driver = new InstanceDriver({
    pool: deps.pool,
    announcer: notifier,
    models,
    immediate: combineImmediateWork(deps.immediate ?? []),
    clock: deps.clock,
    metrics,
    maxStepsPerCall: deps.config.engineMaxSteps,
  });
  const timerMetrics = new TimerMetrics(deps.metrics);
  const timers = createTimerExecutor({
    pool: deps.pool,
    clock: deps.clock,
    logger: deps.logger,
    observer: timerMetrics,
    handle: async (job, client) => {
      if (job.processInstanceId === null || job.waitId === null) return; // timer start events: not yet
      try {
        await driver.apply(
          job.processInstanceId,
          { type: 'complete', waitId: job.waitId },
          undefined,
          client,
        );
      } catch (error) {
        // The wait closed or the instance ended in the meantime: the timer has nothing left to do.
        if (error instanceof ServiceError && (error.statusCode === 404 || error.statusCode === 409)) return;
        throw error;
      }
    },
    onError: async (job, error, client) => {
      if (job.processInstanceId === null || job.waitId === null) return;
      const message = `timer ${job.elementId} could not fire: ${error instanceof Error ? error.message : String(error)}`;
      await driver.apply(
        job.processInstanceId,
        { type: 'fail', waitId: job.waitId, message },
        undefined,
        client,
      );
    },
  });
  const election = new LeaderElection({ connectionString: deps.databaseUrl, logger: deps.logger });
  let stopDuties: (() => Promise<void>) | undefined;
  return {
    deployments: new DeploymentService(deps.pool, models, deps.extensions ?? {}),
    instances: new InstanceService(deps.pool, driver),
    externalTasks: new ExternalTaskService(deps.pool, driver, notifier, deps.clock, metrics),
    userTasks: new UserTaskService(deps.pool, driver, metrics),
    driver,
    timers,
    start: async () => {
      await notifier.start();
      // Exactly one instance of the service, the holder of the advisory lock, fires timers.
      stopDuties = runWhileLeader(election, [timers], { metrics: timerMetrics, logger: deps.logger });
      election.start();
    },
    close: async () => {
      await stopDuties?.();
      await election.stop();
      await notifier.close();
    },
  };
}

/** Registers the engine's HTTP routes. */
export function registerEngineRoutes(app: HttpServer, engine: Engine): void {
  registerDeploymentRoutes(app, engine.deployments);
  registerInstanceRoutes(app, engine.instances);
  registerExternalTaskRoutes(app, engine.externalTasks);
  registerUserTaskRoutes(app, engine.userTasks);
}
