import Type from 'typebox';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { identityOf } from '../auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, Uuid } from '../../common-schemas.js';
import type { UserService } from './user-service.js';

const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
    auth_provider: Type.Optional(Type.Enum(['internal', 'external'])),
  },
  { additionalProperties: false },
);
const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  auth_provider: Type.Enum(['internal', 'external']),
});

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
