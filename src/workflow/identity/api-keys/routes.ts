import Type from 'typebox';
import type { HttpServer } from '../../../platform/http/http-server.js';
import { identityOf } from '../auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../../common-schemas.js';
import type { ApiKeyService } from './api-key-service.js';
import { ApiKeyIdParams, ApiKeyItem, CreateApiKeyBody, CreatedApiKey } from './schemas.js';

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
        params: ApiKeyIdParams,
        response: { 204: Type.Null(), ...authenticatedErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await keys.revoke(identityOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
