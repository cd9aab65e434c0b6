import type { HttpServer } from '../../../platform/http/http-server.js';
import { authenticatedErrors, bearerSecurity } from '../../common-schemas.js';
import { identityOf } from './request-identity.js';
import { MeResponse } from './schemas.js';

/** GET /api/v1/me: the caller and every org they belong to, with roles. */
export function registerMeRoutes(app: HttpServer): void {
  app.get(
    '/api/v1/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The caller, their global roles and their organisations with roles',
        security: bearerSecurity,
        response: { 200: MeResponse, ...authenticatedErrors },
      },
    },
    (request) => {
      const identity = identityOf(request);
      return {
        id: identity.userId,
        email: identity.email,
        auth_provider: identity.authProvider,
        global_roles: identity.globalRoles,
        orgs: identity.orgs,
      };
    },
  );
}
