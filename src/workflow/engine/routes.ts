import type { HttpServer } from '../../platform/http/http-server.js';
import { registerDeploymentRoutes } from '../deployments/routes.js';
import { registerEventRoutes } from '../events/routes.js';
import { registerExternalTaskRoutes, type ExternalTaskRouteOptions } from '../external-tasks/routes.js';
import { registerIncidentRoutes } from '../instances/incident-routes.js';
import { registerOperationRoutes } from '../instances/operation-routes.js';
import { registerInstanceRoutes } from '../instances/routes.js';
import { registerUserTaskRoutes } from '../user-tasks/routes.js';
import { registerBatchRoutes } from '../batches/routes.js';
import { registerMigrationRoutes } from '../instance-migration/routes.js';
import type { Engine } from './engine-service.js';

/** Registers the engine's HTTP routes; `externalTasks` says how workers authenticate. */
export function registerEngineRoutes(
  app: HttpServer,
  engine: Engine,
  externalTasks: ExternalTaskRouteOptions,
): void {
  registerDeploymentRoutes(app, engine.deployments);
  registerInstanceRoutes(app, engine.instances, engine.idempotency);
  registerOperationRoutes(app, engine.instances);
  registerIncidentRoutes(app, engine.instances);
  registerExternalTaskRoutes(app, engine.externalTasks, externalTasks);
  registerUserTaskRoutes(app, engine.userTasks);
  registerEventRoutes(app, engine);
  registerMigrationRoutes(app, engine.migrations, engine.batches);
  registerBatchRoutes(app, engine.batches);
}
