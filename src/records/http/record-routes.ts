import { inexactNumbersOf } from '../../platform/http/exact-json-body.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import type { RecordReader } from '../access/record-reader.js';
import { guardWrite } from '../access/write-guard.js';
import { parseInclude } from '../access/include-parameter.js';
import { isArchivedId } from '../archive/cold-storage.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import type { CursorCodec } from '../records/cursor.js';
import { parseListQuery } from '../records/list-query.js';
import { parseQueryBody } from '../records/query-body.js';
import { exactValues } from '../records/exact-values.js';
import { insertRecord, patchRecord, softDeleteRecord } from '../records/record-repository.js';
import type { WritePipeline } from '../records/write-pipeline.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { successBody } from './envelope.js';
import { idempotencyOf } from './idempotency-header.js';
import { sendRecordPage } from './page-response.js';
import { schemaBase, schemaRequest } from './schema-request.js';
import { sendWriteResult } from './write-reply.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';

/** What the record routes need. */
export interface RecordRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  pipeline: WritePipeline;
  cursors: CursorCodec;
}

const recordIdInJson = /^\{"id" ?: ?"([0-9a-f-]{36})"/;

/** Marks a write route as storing numbers a 64-bit float cannot hold exactly (see exact-values.ts). */
function storesExactNumbers<T extends { config: object }>(options: T): T {
  return { ...options, config: { ...options.config, exactNumbers: true } };
}
// Generated OpenAPI describes these routes per schema (see openapi/), so scopedRoute hides Fastify's.

/**
 * The CRUD and query endpoints of every schema: `/api/{org}/{app}/{domain}/{object}/{version}`
 * and `/{id}`, `/query` below it. Each request resolves its schema from the in-memory registry,
 * passes the access check, then runs one statement.
 */
export function registerRecordRoutes(app: HttpServer, deps: RecordRouteDependencies): void {
  const { registry, access, reader, pipeline, cursors } = deps;
  const base = schemaBase;

  const { prepare, recordId } = schemaRequest(registry, access);

  app.post(base, storesExactNumbers(scopedRoute('create')), async (request, reply) => {
    const schema = prepare(request, 'create', 'create');
    const identity = identityOf(request);
    const body = schema.validateCreate(request.body);
    const exact = exactValues(schema, inexactNumbersOf(request));
    const clientId = body.id !== undefined;
    const guarded = guardWrite(access, identity, schema, 'create', { payload: body }, async (db) => {
      const json = await insertRecord(db, access.view(identity, schema), identity.actor_id, body, exact);
      const id = recordIdInJson.exec(json)?.[1] ?? '';
      // The id of an archived record stays taken: a new record in its place would hide it from
      // everyone. Checked after the insert, in its transaction, so an archival that commits in
      // between is seen.
      if (clientId && (await isArchivedId(db, schema, id))) throw RecordsErrors.uniqueViolation('id');
      return { recordId: id, response: { status: 201, body: successBody(json, request.id) } };
    });
    const result = await pipeline.run({
      schema,
      identity,
      operation: 'create',
      idempotency: idempotencyOf(request, identity, schema),
      transactional: clientId,
      ...guarded,
    });
    return sendWriteResult(reply, result);
  });

  app.get(base, scopedRoute('list'), async (request, reply) => {
    const schema = prepare(request, 'read', 'list');
    const query = request.query as Record<string, unknown>;
    const plan = parseListQuery(schema, query);
    const includes = parseInclude(query.include, schema, registry);
    const read = await reader.readPage(identityOf(request), schema, plan, cursors, includes);
    return sendRecordPage(reply, request, plan, read.page, read.included);
  });

  app.post(`${base}/query`, scopedRoute('query'), async (request, reply) => {
    const schema = prepare(request, 'read', 'query');
    const plan = parseQueryBody(schema, request.body);
    return sendRecordPage(
      reply,
      request,
      plan,
      (await reader.readPage(identityOf(request), schema, plan, cursors)).page,
    );
  });

  app.get(`${base}/:id`, scopedRoute('read'), async (request, reply) => {
    const schema = prepare(request, 'read', 'read');
    const id = recordId(request, schema);
    const includes = parseInclude((request.query as Record<string, unknown>).include, schema, registry);
    const read = await reader.readOne(identityOf(request), schema, id, includes);
    if (read.json === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    const included = read.included !== undefined ? `,"included":${read.included}` : '';
    return reply.type('application/json').send(successBody(read.json, request.id, included));
  });

  app.patch(`${base}/:id`, storesExactNumbers(scopedRoute('update')), async (request, reply) => {
    const schema = prepare(request, 'update', 'update');
    const identity = identityOf(request);
    const id = recordId(request, schema);
    const { version, ...changes } = schema.validatePatch(request.body);
    const exact = exactValues(schema, inexactNumbersOf(request));
    if (Object.keys(changes).length === 0)
      throw RecordsErrors.validation('Nothing to change', [
        { field: '(body)', reason: 'name at least one field to change' },
      ]);
    const guarded = guardWrite(access, identity, schema, 'update', { id, payload: changes }, async (db) => {
      const view = access.view(identity, schema);
      const outcome = await patchRecord(db, view, identity.actor_id, id, version as number, changes, exact);
      if ('missing' in outcome) throw RecordsErrors.entityNotFound(schema.path, id);
      if ('currentVersion' in outcome)
        throw RecordsErrors.optimisticLock(id, version as number, outcome.currentVersion);
      const json = access.maskJson(identity, schema, outcome.updated);
      return { recordId: id, response: { status: 200, body: successBody(json, request.id) } };
    });
    const result = await pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: idempotencyOf(request, identity, schema),
      ...guarded,
    });
    return sendWriteResult(reply, result);
  });

  app.delete(`${base}/:id`, scopedRoute('delete'), async (request, reply) => {
    const schema = prepare(request, 'delete', 'delete');
    const identity = identityOf(request);
    const id = recordId(request, schema);
    const guarded = guardWrite(access, identity, schema, 'delete', { id }, async (db) => {
      if (!(await softDeleteRecord(db, access.view(identity, schema), identity.actor_id, id)))
        throw RecordsErrors.entityNotFound(schema.path, id);
      return { recordId: id, response: { status: 204, body: '' } };
    });
    const result = await pipeline.run({
      schema,
      identity,
      operation: 'delete',
      idempotency: idempotencyOf(request, identity, schema),
      ...guarded,
    });
    return sendWriteResult(reply, result);
  });
}
