import type { FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import { setIdentity } from '../identity/auth/request-identity.js';
import { CamundaAuthenticator } from './authentication.js';
import type { CamundaRestDependencies } from './dependencies.js';
import { registerEngineRoutes } from './engine-routes.js';
import { installCamundaErrors } from './error-handler.js';
import { CamundaExternalTaskApi } from './external-task-api.js';
import { registerExternalTaskRoutes } from './external-task-routes.js';
import { registerCamundaRepository } from './repository-routes.js';
import { registerRuntimeResources } from './runtime-resources.js';
import { Tenants } from './tenants.js';

/** The prefix of the Camunda 7 compatible API. */
export const camundaRestPrefix = '/engine-rest';

// Connection checks (Camunda Modeler's): they answer without credentials, but check those sent.
const anonymousPaths = new Set([`${camundaRestPrefix}/engine`, `${camundaRestPrefix}/version`]);

/**
 * Registers the Camunda 7 compatible REST API under `/engine-rest` (docs/workflow/camunda7.md) in a
 * scope of its own: its own authentication (Bearer or HTTP Basic), Camunda's error bodies, and
 * routes kept out of weft's OpenAPI document (they follow Camunda's reference, not weft's). Each
 * Camunda resource has a routes file; the resources other than external tasks slot in here.
 */
export async function registerCamundaRest(app: HttpServer, deps: CamundaRestDependencies): Promise<void> {
  const authentication = new CamundaAuthenticator(deps.authenticator, deps.logins, deps.identities);
  const tenants = new Tenants(deps.pool);
  await app.register(
    (scope, _options, done) => {
      scope.addHook('onRoute', (route) => {
        // weft's bearer hook leaves these routes to the scope's own authentication below.
        route.config = { ...(route.config as object), public: true };
        route.schema = { ...route.schema, hide: true };
      });
      installCamundaErrors(scope);
      scope.addHook('onRequest', async (request: FastifyRequest) => {
        // Unknown routes are answered 404 by the not-found handler, not 401.
        const url = request.routeOptions.url;
        if (url === undefined) return;
        if (anonymousPaths.has(url) && request.headers.authorization === undefined) return;
        setIdentity(request, await authentication.authenticate(request));
      });
      registerEngineRoutes(scope);
      registerCamundaRepository(scope, deps, tenants);
      registerExternalTaskRoutes(
        scope,
        new CamundaExternalTaskApi(
          deps.pool,
          deps.engine.externalTasks,
          deps.engine.models,
          tenants,
          deps.clock,
        ),
        { reauthenticate: (request) => authentication.authenticate(request), longPolls: deps.longPolls },
      );
      registerRuntimeResources(scope, deps, tenants);
      done();
    },
    { prefix: camundaRestPrefix },
  );
}
