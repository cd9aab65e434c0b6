import type { FastifyRequest } from 'fastify';
import type { Pool } from '../../platform/database/pool.js';
import { stringifyExactJson } from '../../platform/json/exact-json.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import type { RecordReader } from '../access/record-reader.js';
import { auditVisibilitySql } from '../access/audit-visibility.js';
import { maskChange } from '../access/channel-masks.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { parseInstant } from '../history/instant.js';
import { parseLimit } from '../records/select-plan.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { listAudit, type AuditFilter } from './audit-repository.js';
import type { AnchorStore } from './anchor-store.js';
import { presentAuditEvent } from './present.js';
import { verifyRecord } from './verify-record.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';

/** What the audit routes need. */
export interface AuditRouteDependencies {
  /** The owner's pool: verify hashes every history row of a record, past row-level security. */
  ownerPool: Pool;
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  /** The signed anchors of the chains; undefined when no signing key is configured. */
  anchors?: AnchorStore | undefined;
}

/** The role that may read the audit log of every schema at once. */
export const auditorRole = 'auditor';

const auditRoute = scopedRoute('audit');
const operations = new Set(['CREATE', 'UPDATE', 'DELETE', 'RESTORE', 'UNARCHIVE', 'ARCHIVE']);
const cursorShape = /^e(\d{1,18})$/;

function fail(field: string, reason: string): never {
  throw RecordsErrors.validation(`Invalid ${field}`, [{ field, reason }]);
}

function text(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value === '' || value.length > max)
    return fail(field, `must be a string of 1 to ${max} characters`);
  return value;
}

/**
 * `POST /api/platform/audit/verify` and `GET /api/platform/audit`. Reading a schema's audit needs
 * read access to it; reading across schemas needs the `auditor` role. Verify checks the chain, the
 * history rows it covers and, with a signing key, the record's newest signed anchor.
 */
export function registerAuditRoutes(app: HttpServer, deps: AuditRouteDependencies): void {
  const { ownerPool, registry, access, reader, anchors } = deps;
  const readable = (request: FastifyRequest, path: string): CompiledSchema => {
    const schema = registry.resolve(path);
    access.authorize(identityOf(request), schema, 'read');
    return schema;
  };
  const requireAuditor = (request: FastifyRequest) => {
    if (!identityOf(request).roles.includes(auditorRole))
      throw RecordsErrors.rbacDenied('read the audit log of', 'every schema (name one with schema)');
  };

  app.post('/api/platform/audit/verify', auditRoute, async (request, reply) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return fail('(body)', 'must be {schema, id}');
    const { schema: path, id, ...rest } = body as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) fail(extra.slice(0, 100), 'is not a property; send {schema, id}');
    const schema = readable(request, text(path, 'schema'));
    const entity = text(id, 'id', 36);
    if (!uuidPattern.test(entity)) fail('id', 'must be a record id (UUID)');
    const result = await verifyRecord(
      { ownerPool, reader, anchors },
      identityOf(request),
      schema,
      entity.toLowerCase(),
    );
    if (result === undefined) throw RecordsErrors.entityNotFound(schema.path, entity);
    return reply.type('application/json').send(successBody(JSON.stringify(result), request.id));
  });

  app.get('/api/platform/audit', auditRoute, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const filter: AuditFilter = {};
    for (const [key, value] of Object.entries(query)) {
      switch (key) {
        case 'schema':
          filter.schemas = [readable(request, text(value, key)).path];
          break;
        case 'entity_id':
          if (typeof value !== 'string' || !uuidPattern.test(value)) fail(key, 'must be a UUID');
          filter.entityId = value.toLowerCase();
          break;
        case 'actor':
          filter.actor = text(value, key);
          break;
        case 'operation':
          if (typeof value !== 'string' || !operations.has(value))
            fail(key, `must be one of ${[...operations].join(', ')}`);
          filter.operation = value;
          break;
        case 'from':
        case 'to':
          filter[key] = parseInstant(value, key);
          break;
        case 'cursor': {
          const match = typeof value === 'string' ? cursorShape.exec(value) : null;
          if (!match?.[1]) fail(key, 'is not a cursor of this endpoint');
          filter.beforeEventId = match[1];
          break;
        }
        case 'limit':
          break;
        default:
          fail(key.slice(0, 100), 'is not a parameter of the audit log');
      }
    }
    const identity = identityOf(request);
    if (!filter.schemas) {
      requireAuditor(request);
      // Across schemas: those the caller may read (layer 1), as org search does.
      filter.schemas = registry
        .all()
        .filter((schema) => {
          try {
            access.authorize(identity, schema, 'read');
            return true;
          } catch {
            return false;
          }
        })
        .map((schema) => schema.path);
    }
    const limit = parseLimit(query.limit);
    const schemas = filter.schemas.map((path) => registry.resolve(path));
    filter.visible = auditVisibilitySql(access, identity, schemas);
    const entityId = filter.entityId;
    const [only] = schemas;
    const { rows, denied } = await reader.read(identity, schemas, async (db) => {
      // One record named: hidden from the caller is 404, as for GET.
      if (entityId !== undefined && only !== undefined && schemas.length === 1)
        await reader.requireReadable(db, identity, only, entityId);
      const listed = await listAudit(db, filter, limit);
      // Events of records the caller's record read rules deny are left out (an audit page spans
      // many records; one of them should not fail it). The cursor still follows the listed events.
      const hidden = new Set<string>();
      for (const schema of schemas) {
        const ids = new Set(
          listed.filter((row) => row.schema_path === schema.path).map((row) => row.entity_id),
        );
        for (const id of await reader.deniedRecords(db, identity, schema, [...ids]))
          hidden.add(`${schema.path}|${id}`);
      }
      return { rows: listed, denied: hidden };
    });
    const schemaOf = new Map(schemas.map((schema) => [schema.path, schema]));
    const hasMore = rows.length > limit;
    const listedPage = hasMore ? rows.slice(0, limit) : rows;
    const last = listedPage[listedPage.length - 1];
    const pagination = { limit, cursor: hasMore && last ? `e${last.event_id}` : null, has_more: hasMore };
    const page = listedPage.filter((row) => !denied.has(`${row.schema_path}|${row.entity_id}`));
    return reply
      .type('application/json')
      .send(
        successBody(
          stringifyExactJson(
            page.map((row) => maskChange(identity, schemaOf.get(row.schema_path), presentAuditEvent(row))),
          ),
          request.id,
          `,"pagination":${JSON.stringify(pagination)}`,
        ),
      );
  });
}
