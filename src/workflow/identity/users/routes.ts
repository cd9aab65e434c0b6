import type { HttpServer } from '../../../platform/http/http-server.js';
import { identityOf } from '../auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../../common-schemas.js';
import { CreateUserBody, User } from './schemas.js';
import type { UserService } from './user-service.js';

/** POST /api/v1/users. */
export function registerUserRoutes(app: HttpServer, users: UserService): void {
  app.post(
    '/api/v1/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user (PlatformAdmin or OrgAdmin)',
        security: bearerSecurity,
        body: CreateUserBody,
        response: { 201: User, ...authenticatedErrors, 409: ErrorBody },
      },
    },
    async (request, reply) => reply.status(201).send(await users.create(identityOf(request), request.body)),
  );
}
