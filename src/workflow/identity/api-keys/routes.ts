import Type from 'typebox';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { identityOf } from '../auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody, Uuid } from '../../common-schemas.js';
import type { ApiKeyService } from './api-key-service.js';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
const CreatedApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  plaintext_key: Type.String({ description: 'Shown once, on creation only' }),
  created_at: Timestamp,
});
const ApiKeyItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  created_at: Timestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});

/** POST, GET /api/v1/api-keys and DELETE /api/v1/api-keys/{id}. */
export function registerApiKeyRoutes(app: HttpServer, keys: ApiKeyService): void {
  const tags = ['api-keys'];
  app.post(
    '/api/v1/api-keys',
    {
      schema: {
        tags,
        summary: 'Create an API key for the caller; the plaintext is returned once',
        security: bearerSecurity,
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...authenticatedErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await keys.create(identityOf(request), request.body.name)),
  );

  app.get(
    '/api/v1/api-keys',
    {
      schema: {
        tags,
        summary: "The caller's own keys, without secrets",
        security: bearerSecurity,
        response: { 200: Type.Array(ApiKeyItem), ...authenticatedErrors },
      },
    },
    (request) => keys.list(identityOf(request)),
  );

  app.delete(
    '/api/v1/api-keys/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a key; it fails on the very next request',
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await keys.revoke(identityOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
