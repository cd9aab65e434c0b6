import '../../platform/http/route-config.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Authenticator } from '../auth/authenticator.js';
import { decorateIdentity, setIdentity } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import type { Identity } from '../types.js';
import type { ActorRateLimits, RateLimitBudget } from './actor-rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which per-actor budget a records route draws on (default: `default`). */
    recordsRateLimit?: RateLimitBudget;
  }
}

/**
 * Authenticates every non-public route (401 AUTH_INVALID_TOKEN), attaches the Identity, then counts
 * the request against the actor's rate limit. Unknown routes fall through to the 404 handler. A JWT
 * verified before and in-process counters are decided synchronously (no promise per request).
 */
export function installAuthentication(
  app: HttpServer,
  authenticator: Authenticator,
  limits: ActorRateLimits,
): void {
  decorateIdentity(app);
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    identity: Identity | null,
    done: (error?: Error) => void,
  ) => {
    if (identity === null) return done(RecordsErrors.invalidToken());
    setIdentity(request, identity);
    limits.consume(identity.actor_id, request.routeOptions.config.recordsRateLimit ?? 'default', reply, done);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true || request.routeOptions.url === undefined) return done();
    const known = authenticator.authenticateAtOnce(request.headers);
    if (known !== undefined) return admit(request, reply, known, done);
    authenticator.authenticate(request.headers, request.ip).then(
      (identity) => admit(request, reply, identity, done),
      (error: unknown) => done(error as Error),
    );
  });
}
