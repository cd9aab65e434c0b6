import '../../platform/http/route-config.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Authenticator } from '../auth/authenticator.js';
import { setIdentity } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import type { ActorRateLimits, RateLimitBudget } from './actor-rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which per-actor budget a records route draws on (default: `default`). */
    recordsRateLimit?: RateLimitBudget;
  }
}

/**
 * Authenticates every non-public route (401 AUTH_INVALID_TOKEN), attaches the Identity, then counts
 * the request against the actor's rate limit. Unknown routes fall through to the 404 handler.
 */
export function installAuthentication(
  app: HttpServer,
  authenticator: Authenticator,
  limits: ActorRateLimits,
): void {
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.public === true || request.routeOptions.url === undefined) return;
    const identity = await authenticator.authenticate(request.headers, request.ip);
    if (identity === null) throw RecordsErrors.invalidToken();
    setIdentity(request, identity);
    await limits.consume(identity.actor_id, config.recordsRateLimit ?? 'default', reply);
  });
}
