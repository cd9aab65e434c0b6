import Type from 'typebox';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { publicRoute } from '../../../platform/http/route-config.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../../common-schemas.js';
import type { LoginService } from './login-service.js';
import { identityOf } from './request-identity.js';
import { ChangePasswordBody, LoginBody, LoginResponse } from './schemas.js';

/** POST /api/v1/auth/login and POST /api/v1/auth/change-password. */
export function registerAuthRoutes(app: HttpServer, logins: LoginService): void {
  app.post(
    '/api/v1/auth/login',
    {
      ...publicRoute,
      schema: {
        tags: ['auth'],
        summary: 'Exchange email and password for a JWT',
        body: LoginBody,
        response: { 200: LoginResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
    },
    (request) => logins.login(request.body.email, request.body.password, request.ip),
  );

  app.post(
    '/api/v1/auth/change-password',
    {
      schema: {
        tags: ['auth'],
        summary: "Change the caller's password (internal users only); existing JWTs stay valid",
        security: bearerSecurity,
        body: ChangePasswordBody,
        response: { 204: Type.Null(), ...authenticatedErrors, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      const { current_password, new_password } = request.body;
      await logins.changePassword(identityOf(request), current_password, new_password, request.ip);
      return reply.status(204).send(null);
    },
  );
}
