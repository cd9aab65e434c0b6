import type { HttpServer } from '../../platform/http/http-server.js';
import { BundleDeployments } from '../deployments/bundle-deployment.js';
import { CamundaDeploymentApi } from './deployment-api.js';
import { registerDeploymentMultipart } from './deployment-multipart.js';
import { registerDeploymentRoutes } from './deployment-routes.js';
import { registerHistoryRoutes } from './history-routes.js';
import { CamundaProcessDefinitionApi } from './process-definition-api.js';
import { registerProcessDefinitionRoutes } from './process-definition-routes.js';
import { CamundaProcessInstanceApi } from './process-instance-api.js';
import { registerProcessInstanceRoutes } from './process-instance-routes.js';
import type { CamundaRestDependencies } from './dependencies.js';
import type { Tenants } from './tenants.js';

/**
 * Registers the deployment, process-definition, process-instance and history resources in the
 * `/engine-rest` scope, with the multipart parser deployments need (this scope only).
 */
export function registerCamundaRepository(
  scope: HttpServer,
  deps: CamundaRestDependencies,
  tenants: Tenants,
): void {
  const limits = { maxBytes: deps.bodyLimitBytes };
  registerDeploymentMultipart(scope, limits);
  const bundles = new BundleDeployments(
    deps.pool,
    deps.engine.deployments,
    deps.decisions,
    deps.engine.forms,
  );
  registerDeploymentRoutes(scope, new CamundaDeploymentApi(deps.pool, bundles, tenants, deps.clock), limits);
  registerProcessDefinitionRoutes(
    scope,
    new CamundaProcessDefinitionApi(
      deps.pool,
      deps.engine.instances,
      tenants,
      deps.engine.models,
      deps.engine.forms,
      deps.engine.deployments,
    ),
  );
  const instances = new CamundaProcessInstanceApi(deps.pool, deps.engine.instances, tenants);
  registerProcessInstanceRoutes(scope, instances);
  registerHistoryRoutes(scope, instances);
}
