import Type from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { CamundaIncidentApi } from './incident-api.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
const RetriesBody = Type.Object({ retries: Type.Integer({ minimum: 0, maximum: 1_000_000 }) });

/**
 * `PUT /external-task/{id}/retries` and `PUT /job/{id}/retries`, as Camunda's tools resolve a
 * failed external task's or job's incident: the id is the incident's `configuration`
 * (docs/workflow/camunda7.md, Incidents). Kept apart from the external-task routes, which the rest
 * of that resource owns.
 */
export function registerRetriesRoutes(scope: HttpServer, api: CamundaIncidentApi): void {
  scope.put(
    '/external-task/:id/retries',
    { schema: { params: IdParams, body: RetriesBody } },
    async (request, reply) => {
      await api.setRetries(
        'failedExternalTask',
        request.params.id,
        request.body.retries,
        identityOf(request),
      );
      return reply.status(204).send();
    },
  );

  scope.put(
    '/job/:id/retries',
    { schema: { params: IdParams, body: RetriesBody } },
    async (request, reply) => {
      await api.setRetries('failedJob', request.params.id, request.body.retries, identityOf(request));
      return reply.status(204).send();
    },
  );
}
