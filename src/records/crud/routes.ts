import { inexactNumbersOf } from '../../platform/http/exact-json-body.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import { parseInclude } from '../access/include-parameter.js';
import { identityOf } from '../auth/request-identity.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { recordWriteOf } from '../http/record-write.js';
import { sendRecordPage } from '../http/page-response.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { sendWriteResult } from '../http/write-reply.js';
import { exactValues } from '../records/exact-values.js';
import { parseListQuery } from '../records/list-query.js';
import { parseQueryBody } from '../records/query-body.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { RecordService } from './record-service.js';

/** What the record routes need. */
export interface RecordRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  records: RecordService;
}

/** Marks a write route as storing numbers a 64-bit float cannot hold exactly (see exact-values.ts). */
function storesExactNumbers<T extends { config: object }>(options: T): T {
  return { ...options, config: { ...options.config, exactNumbers: true } };
}
// Generated OpenAPI describes these routes per schema (see openapi/), so scopedRoute hides Fastify's.

/**
 * The CRUD and query endpoints of every schema: `/api/{org}/{app}/{domain}/{object}/{version}`
 * and `/{id}`, `/query` below it. Each request resolves its schema from the in-memory registry and
 * passes route RBAC, its body or query is parsed against the schema, then the record service runs it.
 */
export function registerRecordRoutes(app: HttpServer, deps: RecordRouteDependencies): void {
  const { registry, access, records } = deps;
  const base = schemaBase;

  const { prepare, recordId } = schemaRequest(registry, access);

  app.post(base, storesExactNumbers(scopedRoute('create')), async (request, reply) => {
    const schema = prepare(request, 'create', 'create');
    const write = recordWriteOf(request, schema);
    const body = schema.validateCreate(request.body);
    const exact = exactValues(schema, inexactNumbersOf(request));
    return sendWriteResult(reply, await records.create(write, body, exact));
  });

  app.get(base, scopedRoute('list'), async (request, reply) => {
    const schema = prepare(request, 'read', 'list');
    const query = request.query as Record<string, unknown>;
    const plan = parseListQuery(schema, query);
    const includes = parseInclude(query.include, schema, registry);
    const read = await records.readPage(identityOf(request), schema, plan, includes);
    return sendRecordPage(reply, request, plan, read.page, read.included);
  });

  app.post(`${base}/query`, scopedRoute('query'), async (request, reply) => {
    const schema = prepare(request, 'read', 'query');
    const plan = parseQueryBody(schema, request.body);
    return sendRecordPage(
      reply,
      request,
      plan,
      (await records.readPage(identityOf(request), schema, plan)).page,
    );
  });

  app.get(`${base}/:id`, scopedRoute('read'), async (request, reply) => {
    const schema = prepare(request, 'read', 'read');
    const id = recordId(request, schema);
    const includes = parseInclude((request.query as Record<string, unknown>).include, schema, registry);
    const read = await records.read(identityOf(request), schema, id, includes);
    const included = read.included !== undefined ? `,"included":${read.included}` : '';
    return reply.type('application/json').send(successBody(read.json, request.id, included));
  });

  app.patch(`${base}/:id`, storesExactNumbers(scopedRoute('update')), async (request, reply) => {
    const schema = prepare(request, 'update', 'update');
    const write = recordWriteOf(request, schema);
    const id = recordId(request, schema);
    const { version, ...changes } = schema.validatePatch(request.body);
    const exact = exactValues(schema, inexactNumbersOf(request));
    if (Object.keys(changes).length === 0)
      throw RecordsErrors.validation('Nothing to change', [
        { field: '(body)', reason: 'name at least one field to change' },
      ]);
    return sendWriteResult(reply, await records.update(write, id, version as number, changes, exact));
  });

  app.delete(`${base}/:id`, scopedRoute('delete'), async (request, reply) => {
    const schema = prepare(request, 'delete', 'delete');
    const write = recordWriteOf(request, schema);
    const id = recordId(request, schema);
    return sendWriteResult(reply, await records.delete(write, id));
  });
}
