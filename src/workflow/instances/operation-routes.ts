import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { InstanceService } from './instance-service.js';
import { toModification } from './modification-request.js';
import { DefinitionSuspension, Instance, InstanceIdParams, ModificationBody } from './schemas.js';

const errors = { ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody };

/**
 * Operations on running instances (docs/workflow/operations.md), all for the Operator role:
 * suspend and resume an instance or a whole deployed version, and modify an instance's tokens.
 */
export function registerOperationRoutes(app: HttpServer, instances: InstanceService): void {
  const tags = ['process-instances'];
  const security = bearerSecurity;
  const instanceRoute = (summary: string) => ({
    schema: { tags, security, summary, params: InstanceIdParams, response: { 200: Instance, ...errors } },
  });
  const definitionRoute = (summary: string) => ({
    schema: {
      tags: ['deployments'],
      security,
      summary,
      params: InstanceIdParams,
      response: { 200: DefinitionSuspension, ...errors },
    },
  });

  app.post(
    '/api/v1/process-instances/:id/suspend',
    instanceRoute('Suspend a running instance: its work waits until it is resumed (Operator)'),
    (request) => instances.suspend(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/resume',
    instanceRoute('Resume a suspended instance (Operator)'),
    (request) => instances.resume(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/modification',
    {
      schema: {
        tags,
        security,
        summary: "Start and cancel an instance's tokens in one transaction (Operator)",
        params: InstanceIdParams,
        body: ModificationBody,
        response: { 200: Instance, ...errors },
      },
    },
    (request) => instances.modify(identityOf(request), request.params.id, toModification(request.body)),
  );

  app.post(
    '/api/v1/deployments/:id/suspend',
    definitionRoute('Suspend a version and its running instances; it starts no instance (Operator)'),
    (request) => instances.suspendDefinition(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/deployments/:id/resume',
    definitionRoute('Resume a suspended version and its suspended running instances (Operator)'),
    (request) => instances.resumeDefinition(identityOf(request), request.params.id),
  );
}
