import { scopeTokenPattern } from './scopes/token-scopes.js';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Logger } from '../../platform/logging/logger.js';
import { RecordsErrors } from '../errors.js';
import { platformAdminRole } from '../role-bindings/routes.js';
import { AuthErrors } from './auth-errors.js';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey, type ApiKeySummary } from './api-keys.js';
import { isCidr } from './strategies/strategy-definition.js';
import { identityOf } from './request-identity.js';
import { parseDuration } from './duration.js';

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
const durationText = Type.String({ pattern: '^\\d{1,6}[smhdw]$' });

const CreateBody = Type.Object(
  {
    actor: Type.String({ minLength: 1, maxLength: 512 }),
    roles: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }),
    ttl: Type.Optional(durationText),
    allow: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    /** Token scopes the key grants (a strategy's `requiredScopes` checks them). */
    scopes: Type.Optional(Type.Array(Type.String({ pattern: scopeTokenPattern }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

const RotateBody = Type.Object(
  { grace: Type.Optional(durationText), ttl: Type.Optional(durationText) },
  { additionalProperties: false },
);

const ListQuery = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 512 })),
  all: Type.Optional(Type.Boolean()),
});

const timestamp = Type.Union([Type.String(), Type.Null()]);
const Summary = Type.Object({
  id: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  actor: Type.String(),
  roles: Type.Array(Type.String()),
  allowed_cidrs: Type.Array(Type.String()),
  created_at: Type.String(),
  created_by: Type.Union([Type.String(), Type.Null()]),
  expires_at: timestamp,
  revoked_at: timestamp,
  revoked_by: Type.Union([Type.String(), Type.Null()]),
  replaced_by: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
});
const Issued = Type.Object({
  id: Type.String(),
  key: Type.String(),
  expires_at: timestamp,
  replaces: Type.Optional(Type.String()),
  /** Until when the replaced key still works (its grace period); null: it was revoked at once. */
  replaced_until: Type.Optional(timestamp),
});

// The rotate body is optional, which a route body schema cannot say: checked here.
function rotationOf(body: unknown): Static<typeof RotateBody> {
  if (body === undefined || body === null) return {};
  if (Value.Check(RotateBody, body)) return body;
  throw RecordsErrors.validation(
    'The request is invalid',
    [...Value.Errors(RotateBody, body)].slice(0, 10).map((error) => ({
      field: `body${error.instancePath.replaceAll('/', '.')}`,
      reason: error.message,
    })),
  );
}

function summary(key: ApiKeySummary): Static<typeof Summary> {
  return {
    id: key.id,
    label: key.label,
    actor: key.actor,
    roles: key.roles,
    allowed_cidrs: key.allowedCidrs,
    created_at: key.createdAt.toISOString(),
    created_by: key.createdBy,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    revoked_by: key.revokedBy,
    replaced_by: key.replacedBy,
    status: key.status,
  };
}

/**
 * The admin endpoints of records API keys, for actors with the role `platform-admin` (others: 403
 * RBAC_DENIED): `GET /api/platform/api-keys` (never a hash or a plaintext), `POST` to create,
 * `POST …/{id}/revoke` (204; the next request with the key is refused on every instance) and
 * `POST …/{id}/rotate` (a new key; the old one is revoked, or expires after `grace`). The plaintext
 * of a key is in the create and rotate responses only (`Cache-Control: no-store`).
 */
export function registerApiKeyRoutes(app: HttpServer, deps: { pool: Pool; logger: Logger }): void {
  const admin = (request: Parameters<typeof identityOf>[0], operation: string): string => {
    const identity = identityOf(request);
    if (!identity.roles.includes(platformAdminRole)) throw AuthErrors.forbidden(operation, platformAdminRole);
    return identity.actor_id;
  };
  const common = { tags: ['platform'], security: [{ bearer: [] }] };

  app.get(
    '/api/platform/api-keys',
    {
      config: { recordsScope: 'admin' },
      schema: {
        ...common,
        summary: 'List records API keys',
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(Summary), status: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request) => {
      admin(request, 'list API keys');
      const query = request.query;
      const keys = await listApiKeys(deps.pool, {
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        includeInactive: query.all ?? false,
      });
      return { data: keys.map(summary), status: 'success', requestId: request.id };
    },
  );

  app.post(
    '/api/platform/api-keys',
    {
      config: { recordsScope: 'admin' },
      schema: {
        ...common,
        summary: 'Create a records API key (its plaintext is in this response only)',
        body: CreateBody,
        response: {
          201: Type.Object({ data: Issued, status: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const by = admin(request, 'create API keys');
      const body = request.body;
      const badRange = (body.allow ?? []).findIndex((cidr) => !isCidr(cidr));
      if (badRange >= 0)
        throw RecordsErrors.validation('The request is invalid', [
          { field: `allow.${badRange}`, reason: 'must be a CIDR range' },
        ]);
      const key = await createApiKey(deps.pool, {
        actor: body.actor,
        roles: body.roles,
        createdBy: by,
        ...(body.ttl !== undefined ? { ttlSeconds: parseDuration(body.ttl) } : {}),
        ...(body.allow ? { allowedCidrs: body.allow } : {}),
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.scopes ? { scopes: body.scopes } : {}),
      });
      deps.logger.info({ apiKey: key.id, actor: body.actor, by }, 'API key created');
      return reply
        .status(201)
        .header('cache-control', 'no-store')
        .send({
          data: { id: key.id, key: key.plaintext, expires_at: key.expiresAt?.toISOString() ?? null },
          status: 'success',
          requestId: request.id,
        });
    },
  );

  app.post(
    '/api/platform/api-keys/:id/revoke',
    {
      config: { recordsScope: 'admin' },
      schema: {
        ...common,
        summary: 'Revoke a records API key',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Revoked' }) },
      },
    },
    async (request, reply) => {
      const by = admin(request, 'revoke API keys');
      const { id } = request.params;
      const outcome = await revokeApiKey(deps.pool, id, by);
      if (outcome === 'missing') throw RecordsErrors.notFound(`No API key ${id}`, { id });
      if (outcome === 'revoked') deps.logger.info({ apiKey: id, by }, 'API key revoked');
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/platform/api-keys/:id/rotate',
    {
      config: { recordsScope: 'admin' },
      schema: {
        ...common,
        summary: 'Rotate a records API key (the new plaintext is in this response only)',
        params: IdParams,
        response: {
          201: Type.Object({ data: Issued, status: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const by = admin(request, 'rotate API keys');
      const { id } = request.params;
      const body = rotationOf(request.body);
      const rotated = await withTransaction(deps.pool, (client) =>
        rotateApiKey(client, id, {
          rotatedBy: by,
          ...(body.grace !== undefined ? { graceSeconds: parseDuration(body.grace) } : {}),
          ...(body.ttl !== undefined ? { ttlSeconds: parseDuration(body.ttl) } : {}),
        }),
      );
      if (!rotated) throw RecordsErrors.notFound(`No working, unrotated API key ${id}`, { id });
      deps.logger.info({ apiKey: id, newApiKey: rotated.id, by }, 'API key rotated');
      return reply
        .status(201)
        .header('cache-control', 'no-store')
        .send({
          data: {
            id: rotated.id,
            key: rotated.plaintext,
            expires_at: rotated.expiresAt?.toISOString() ?? null,
            replaces: id,
            replaced_until: rotated.oldUntil?.toISOString() ?? null,
          },
          status: 'success',
          requestId: request.id,
        });
    },
  );
}
