import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import type { CamundaMessageApi } from './message-api.js';
import { CorrelateMessageBody, SignalBody } from './message-schemas.js';

/**
 * Camunda 7's `/message` and `/signal` resources: 204, or with `resultEnabled` the correlation
 * results (docs/workflow/camunda7.md, Messages and signals).
 */
export function registerMessageRoutes(scope: HttpServer, api: CamundaMessageApi): void {
  scope.post('/message', { schema: { body: CorrelateMessageBody } }, async (request, reply) => {
    const results = await api.correlate(request.body, identityOf(request));
    return request.body.resultEnabled === true ? reply.status(200).send(results) : reply.status(204).send();
  });

  scope.post('/signal', { schema: { body: SignalBody } }, async (request, reply) => {
    await api.signal(request.body, identityOf(request));
    return reply.status(204).send();
  });
}
