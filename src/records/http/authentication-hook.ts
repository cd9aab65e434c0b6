import '../../platform/http/route-config.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import { decorateIdentity, setIdentity } from '../auth/request-identity.js';
import type {
  AuthenticationDecision,
  RequestAuthenticator,
} from '../auth/strategies/request-authenticator.js';
import { recordAuthDecisions } from '../auth-audit/audit-hook.js';
import type { AuthAuditLog } from '../auth-audit/auth-audit-log.js';
import { missingScopes } from '../auth/scopes/required-scopes.js';
import '../auth/scopes/scoped-operations.js';
import { RecordsErrors } from '../errors.js';
import type { ActorRateLimits, RateLimitBudget } from './actor-rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which per-actor budget a records route draws on (default: `default`). */
    recordsRateLimit?: RateLimitBudget;
  }
  interface FastifyRequest {
    /** The authentication decision of a non-public records request (null on public routes). */
    recordsAuthDecision: AuthenticationDecision | null;
  }
}

/**
 * Authenticates every non-public route (401 AUTH_INVALID_TOKEN; 503 REVOCATION_UNAVAILABLE when the
 * revocation store is down), attaches the Identity, checks the token scopes the authenticating
 * strategy requires for the route's operation (401 AUTH_INSUFFICIENT_SCOPES), counts the request
 * against the actor's rate limit, and has the decision written to the auth audit log. Unknown routes
 * fall through to the 404 handler. A remembered JWT, the cached bindings and in-process counters are decided synchronously
 * (no promise per request).
 */
export function installAuthentication(
  app: HttpServer,
  authenticator: RequestAuthenticator,
  limits: ActorRateLimits,
  audit: AuthAuditLog,
): void {
  decorateIdentity(app);
  app.decorateRequest('recordsAuthDecision', null);
  app.addHook('onRoute', (route) => {
    const config = route.config as { public?: boolean; recordsScope?: string } | undefined;
    if (config?.public !== true && config?.recordsScope === undefined)
      app.log.warn(
        { method: route.method, url: route.url },
        "route has no scoped operation (config.recordsScope): only requiredScopes['*'] applies to it",
      );
  });
  recordAuthDecisions(app, audit);
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    decision: AuthenticationDecision,
    done: (error?: Error) => void,
  ) => {
    request.recordsAuthDecision = decision;
    if (!decision.ok) return done(decision.error);
    setIdentity(request, decision.identity);
    if (decision.requiredScopes !== undefined) {
      const operation = request.routeOptions.config.recordsScope;
      const missing = missingScopes(decision.requiredScopes, operation, decision.scopes);
      if (missing.length > 0) {
        reply.header('www-authenticate', `Bearer error="insufficient_scope", scope="${missing.join(' ')}"`);
        return done(RecordsErrors.insufficientScopes(operation ?? 'this operation', missing));
      }
    }
    limits.consume(
      decision.identity.actor_id,
      request.routeOptions.config.recordsRateLimit ?? 'default',
      reply,
      done,
    );
  };
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true || request.routeOptions.url === undefined) return done();
    const known = authenticator.decideAtOnce(request);
    if (known !== undefined) return admit(request, reply, known, done);
    authenticator.decide(request).then(
      (decision) => admit(request, reply, decision, done),
      (error: unknown) => done(error as Error),
    );
  });
}
