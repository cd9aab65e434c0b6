import type { HttpServer } from '../../platform/http/http-server.js';
import { redactUrl } from '../../platform/logging/redact-url.js';
import { outcomeOfErrorCode } from './audit-outcome.js';
import type { AuthAuditLog } from './auth-audit-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `code` of the error body this request answered with, if any. */
    recordsErrorCode: string | null;
  }
}

const errorCodeAtStart = /^\{"code":"([A-Z0-9_]{1,64})"/;

/**
 * Records every authenticated request's decision in the auth audit log once its response is sent:
 * authentication failures by their outcome, the others by the error code of the response (so the
 * access layers' denials are recorded without those layers knowing about the log).
 */
export function recordAuthDecisions(app: HttpServer, audit: AuthAuditLog): void {
  app.decorateRequest('recordsErrorCode', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && request.recordsAuthDecision != null && typeof payload === 'string') {
      request.recordsErrorCode = errorCodeAtStart.exec(payload)?.[1] ?? null;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const decision = request.recordsAuthDecision;
    // Undefined, not null, on the console's files: that scope was registered before the decorator.
    if (decision == null) return done();
    const marked = request.recordsOperation;
    // An unmatched URL is kept as sent, less any credential in its query string.
    const route = request.routeOptions.url ?? redactUrl(request.url);
    const operation = marked?.operation.operation ?? `${request.method} ${route}`;
    const resource = marked?.operation.schema ?? route;
    if (decision.ok) {
      audit.record({
        actor: decision.identity.actor_id,
        operation,
        resource,
        strategy: decision.strategy,
        outcome: outcomeOfErrorCode(request.recordsErrorCode ?? undefined),
        failMode: decision.failMode,
        requestId: request.id,
      });
    } else {
      audit.record({
        actor: decision.actor,
        operation,
        resource,
        strategy: decision.strategy,
        outcome: decision.outcome,
        failMode: 'NONE',
        requestId: request.id,
      });
    }
    done();
  });
}
