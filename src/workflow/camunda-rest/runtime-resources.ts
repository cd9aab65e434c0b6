import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { DecisionService } from '../decisions/decision-service.js';
import type { Engine } from '../engine/engine-service.js';
import { CamundaDecisionApi } from './decision-definition-api.js';
import { registerDecisionDefinitionRoutes } from './decision-definition-routes.js';
import { registerRetriesRoutes } from './external-task-retries-routes.js';
import { CamundaIncidentApi } from './incident-api.js';
import { registerIncidentRoutes } from './incident-routes.js';
import { CamundaMessageApi } from './message-api.js';
import { registerMessageRoutes } from './message-routes.js';
import { CamundaTaskApi } from './task-api.js';
import { registerTaskRoutes } from './task-routes.js';
import type { Tenants } from './tenants.js';

/** What the resources of running work need. */
export interface RuntimeResourceDependencies {
  pool: Pool;
  clock: Clock;
  engine: Engine;
  decisions: DecisionService;
}

/**
 * Registers the Camunda resources of running work in the `/engine-rest` scope: `task`, `message`,
 * `signal`, `decision-definition`, `incident`, and the retries of failed external tasks and jobs.
 */
export function registerRuntimeResources(
  scope: HttpServer,
  deps: RuntimeResourceDependencies,
  tenants: Tenants,
): void {
  const { pool, engine } = deps;
  registerTaskRoutes(scope, new CamundaTaskApi(pool, engine.userTasks, tenants));
  registerMessageRoutes(
    scope,
    new CamundaMessageApi(pool, engine.driver, engine.models, engine.signals, tenants),
  );
  registerDecisionDefinitionRoutes(scope, new CamundaDecisionApi(pool, deps.decisions, tenants));
  const incidents = new CamundaIncidentApi(pool, engine.instances, tenants, deps.clock);
  registerIncidentRoutes(scope, incidents);
  registerRetriesRoutes(scope, incidents);
}
