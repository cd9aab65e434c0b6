import type { HttpServer } from '../../platform/http/http-server.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, IdempotencyHeaders } from '../common-schemas.js';
import type { Variables } from '../engine/runtime/index.js';
import type { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import { unmatchedMessage, type MessageOutcome, type MessageService } from './message-service.js';
import {
  BroadcastSignalBody,
  PublishMessageResponse,
  PublishMessageBody,
  BroadcastSignalResponse,
} from './schemas.js';
import type { SignalService } from './signal-service.js';

/**
 * `POST /api/v1/messages` and `POST /api/v1/signals` (Operator), idempotent with an
 * `Idempotency-Key`.
 */
export function registerEventRoutes(
  app: HttpServer,
  services: { messages: MessageService; signals: SignalService; idempotency: IdempotentRequests },
): void {
  const tags = ['messages and signals'];
  const security = bearerSecurity;

  app.post(
    '/api/v1/messages',
    {
      schema: {
        tags,
        security,
        summary:
          'Correlate a message to waiting instances and/or start instances from message start events (Operator)',
        headers: IdempotencyHeaders,
        body: PublishMessageBody,
        response: {
          200: PublishMessageResponse,
          ...authenticatedErrors,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      requireOrgRole(identityOf(request), body.org_id, ['Operator']);
      const message = {
        orgId: body.org_id,
        messageName: body.message_name,
        correlationKey: body.correlation_key ?? null,
        variables: (body.variables ?? {}) as Variables,
        ...(body.time_to_live_ms === undefined ? {} : { timeToLiveMs: body.time_to_live_ms }),
      };
      // A message buffered in an idempotent request's transaction is offered to the waits once
      // more after the commit; the stored answer stays "buffered", as it was when it committed.
      const afterCommit = async (outcome: MessageOutcome) => {
        if (outcome.buffered !== null) await services.messages.offerBuffered(message, outcome.buffered.id);
      };
      const options = { orgId: body.org_id, status: 200, afterCommit };
      return services.idempotency.respond(request, reply, options, async (db) => {
        const outcome = await services.messages.publish(message, db);
        const matched = outcome.started.length + outcome.correlated.length > 0;
        if (!matched && outcome.buffered === null) throw unmatchedMessage(body.message_name);
        return outcome;
      });
    },
  );

  app.post(
    '/api/v1/signals',
    {
      schema: {
        tags,
        security,
        summary:
          'Broadcast a signal to every waiting instance and start instances from signal start events (Operator)',
        headers: IdempotencyHeaders,
        body: BroadcastSignalBody,
        response: {
          200: BroadcastSignalResponse,
          ...authenticatedErrors,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      requireOrgRole(identityOf(request), body.org_id, ['Operator']);
      const signal = {
        orgId: body.org_id,
        signalName: body.signal_name,
        variables: (body.variables ?? {}) as Variables,
      };
      return services.idempotency.respond(request, reply, { orgId: body.org_id, status: 200 }, (db) =>
        services.signals.broadcast(signal, db),
      );
    },
  );
}
