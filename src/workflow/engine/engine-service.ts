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
  return {
    deployments: new DeploymentService(deps.pool, models, deps.extensions ?? {}),
    instances: new InstanceService(deps.pool, driver),
    externalTasks: new ExternalTaskService(deps.pool, driver, notifier, deps.clock, metrics),
    userTasks: new UserTaskService(deps.pool, driver, metrics),
    driver,
    start: () => notifier.start(),
    close: () => notifier.close(),
  };
}

/** Registers the engine's HTTP routes. */
export function registerEngineRoutes(app: HttpServer, engine: Engine): void {
  registerDeploymentRoutes(app, engine.deployments);
  registerInstanceRoutes(app, engine.instances);
  registerExternalTaskRoutes(app, engine.externalTasks);
  registerUserTaskRoutes(app, engine.userTasks);
}
