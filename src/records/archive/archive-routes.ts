import type { FastifyRequest } from 'fastify';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { idempotencyOf } from '../http/idempotency-header.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { sendWriteResult } from '../http/write-reply.js';
import { parseQueryBody } from '../records/query-body.js';
import type { WritePipeline } from '../records/write-pipeline.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { archiveView } from './archive-spec.js';
import {
  queryArchivedRecords,
  readArchivedRecord,
  unarchiveAsCaller,
  unarchiveSessionSql,
} from './archive-access.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';

/** What the archive routes need. */
export interface ArchiveRouteDependencies {
  pool: Pool;
  registry: SchemaRegistry;
  access: AccessControl;
  pipeline: WritePipeline;
}

const archiveRoute = scopedRoute('archive');
const queryRoute = {
  schema: { hide: true },
  config: { recordsRateLimit: 'archiveQuery' as const, recordsScope: 'archive' as const },
};
const maxReason = 2000;
const queryKeys = ['where', 'select', 'limit'];

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw RecordsErrors.validation('The body must be a JSON object');
  return body as Record<string, unknown>;
}

function versionOf(query: Record<string, unknown>): number | undefined {
  for (const key of Object.keys(query))
    if (key !== 'version')
      throw RecordsErrors.validation(`Unknown parameter ${key.slice(0, 100)}`, [
        { field: key.slice(0, 100), reason: 'is not one of version' },
      ]);
  const raw = query.version;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw))
    throw RecordsErrors.validation('Invalid version', [
      { field: 'version', reason: 'must be a positive integer' },
    ]);
  return Number(raw);
}

/**
 * Cold storage of a schema: `GET /{id}/archive?version=N` (an archived record with `archived_at`),
 * `POST /archive/query` (the query DSL over archived records; its own rate limit) and
 * `POST /{id}/unarchive {reason}` (back to hot storage with its history, 200 with the record).
 * Every route applies the caller's access layers (archive-access.ts).
 */
export function registerArchiveRoutes(app: HttpServer, deps: ArchiveRouteDependencies): void {
  const { pool, pipeline, access } = deps;
  const { prepare, recordId } = schemaRequest(deps.registry, deps.access);

  app.post(`${schemaBase}/archive/query`, queryRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'archive_query');
    const body = bodyOf(request);
    for (const key of Object.keys(body))
      if (!queryKeys.includes(key))
        throw RecordsErrors.validation('Invalid query', [
          { field: key.slice(0, 100), reason: `is not one of ${queryKeys.join(', ')}` },
        ]);
    const plan = parseQueryBody({ ...archiveView(schema.definition), path: schema.path }, body);
    const page = await queryArchivedRecords(pool, access, identityOf(request), schema, plan);
    return reply
      .type('application/json')
      .send(
        successBody(
          `[${page.rows.join(',')}]`,
          request.id,
          `,"pagination":${JSON.stringify({ limit: plan.limit, has_more: page.hasMore })}`,
        ),
      );
  });

  app.get(`${schemaBase}/:id/archive`, archiveRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'archive_read');
    const id = recordId(request, schema);
    const version = versionOf(request.query as Record<string, unknown>);
    const json = await readArchivedRecord(pool, access, identityOf(request), schema, id, version);
    if (json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    return reply.type('application/json').send(successBody(json, request.id));
  });

  app.post(`${schemaBase}/:id/unarchive`, scopedRoute('unarchive'), async (request, reply) => {
    const schema = prepare(request, 'update', 'unarchive');
    const identity = identityOf(request);
    const id = recordId(request, schema);
    const body = bodyOf(request);
    for (const key of Object.keys(body))
      if (key !== 'reason')
        throw RecordsErrors.validation(`Unknown property ${key.slice(0, 100)}`, [
          { field: key.slice(0, 100), reason: 'is not one of reason' },
        ]);
    const reason = body.reason;
    if (typeof reason !== 'string' || reason.trim() === '' || reason.length > maxReason)
      throw RecordsErrors.validation('Invalid reason', [
        { field: 'reason', reason: `must be a non-empty string of at most ${maxReason} characters` },
      ]);
    const settings = unarchiveSessionSql(access, identity, schema);
    const result = await pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: idempotencyOf(request, identity, schema),
      transactional: true,
      ...(settings !== undefined ? { begin: async (client) => void (await client.query(settings)) } : {}),
      execute: async (db) => {
        const json = await unarchiveAsCaller(db, access, identity, schema, id, reason);
        if (json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
        return { recordId: id, response: { status: 200, body: successBody(json, request.id) } };
      },
    });
    return sendWriteResult(reply, result);
  });
}
