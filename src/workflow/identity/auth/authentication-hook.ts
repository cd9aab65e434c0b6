import '../../../platform/http/route-config.js';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { WorkflowErrors } from '../../errors.js';
import type { Authenticator } from './authenticator.js';
import { setIdentity } from './request-identity.js';

/**
 * Requires a valid bearer token on every route not marked public. Unknown routes are left to the
 * 404 handler so that a typo answers "no such route" rather than "unauthenticated".
 */
export function installAuthentication(app: HttpServer, authenticator: Authenticator): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public === true || request.routeOptions.url === undefined) return;
    const identity = await authenticator.authenticate(request.headers.authorization);
    if (identity === null) throw WorkflowErrors.unauthenticated();
    setIdentity(request, identity);
  });
}
