import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import { identityOf } from '../auth/request-identity.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';
import { RecordsErrors } from '../errors.js';
import { parseReason } from '../history/reason.js';
import { successBody } from '../http/envelope.js';
import { recordWriteOf } from '../http/record-write.js';
import { beforeValidation } from '../http/route-schema.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { sendWriteResult } from '../http/write-reply.js';
import { parseQueryBody } from '../records/query-body.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { CursorCodec } from '../records/cursor.js';
import type { SelectPlan } from '../records/select-plan.js';
import type { ArchivePosition } from './archive-repository.js';
import { archiveView } from './archive-spec.js';
import {
  ArchiveQueryBody,
  archiveQueryProblems,
  ArchiveReadQuery,
  archiveReadProblems,
  UnarchiveBody,
  unarchiveProblems,
} from './schemas.js';
import type { ArchiveService } from './archive-service.js';

/** What the archive routes need. */
export interface ArchiveRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  archive: ArchiveService;
  cursors: CursorCodec;
}

/** What an archive query cursor is bound to: the schema and the query without its page. */
function cursorQuery(path: string, plan: SelectPlan): string {
  return JSON.stringify([path, 'archive', plan.where, plan.select?.map((column) => column.name) ?? null]);
}

function positionOf(values: unknown[]): ArchivePosition {
  const [archivedAt, id] = values;
  if (typeof archivedAt !== 'string' || typeof id !== 'string')
    throw RecordsErrors.validation('The cursor is invalid or belongs to another query', [
      { field: 'cursor', reason: 'is invalid or belongs to another query' },
    ]);
  return { archived_at: archivedAt, id };
}

const archiveRoute = scopedRoute('archive');
const unarchiveRoute = scopedRoute('unarchive');
const queryRoute = {
  schema: { hide: true },
  config: { recordsRateLimit: 'archiveQuery' as const, recordsScope: 'archive' as const },
};

function versionOf(raw: unknown): number | undefined {
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
 * Every route applies the caller's access layers (archive/archive-service.ts).
 */
export function registerArchiveRoutes(app: HttpServer, deps: ArchiveRouteDependencies): void {
  const { archive } = deps;
  const { prepare, recordId } = schemaRequest(deps.registry, deps.access);

  // The schema and route RBAC (and the record id) come before the body or query.
  const querySchema = beforeValidation((request) => prepare(request, 'read', 'archive_query'));
  app.post(
    `${schemaBase}/archive/query`,
    {
      ...queryRoute,
      schema: { ...queryRoute.schema, body: ArchiveQueryBody },
      schemaErrorFormatter: archiveQueryProblems,
      preValidation: querySchema.preValidation,
    },
    async (request, reply) => {
      const schema = querySchema.of(request);
      const plan = parseQueryBody({ ...archiveView(schema.definition), path: schema.path }, request.body);
      const query = cursorQuery(schema.path, plan);
      const after =
        plan.cursor !== undefined ? positionOf(deps.cursors.decode(plan.cursor, query, 2)) : undefined;
      const page = await archive.query(identityOf(request), schema, plan, after);
      const last = page.positions[page.rows.length - 1];
      const cursor =
        page.hasMore && last ? deps.cursors.encode(query, JSON.stringify([last.archived_at, last.id])) : null;
      return reply
        .type('application/json')
        .send(
          successBody(
            `[${page.rows.join(',')}]`,
            request.id,
            `,"pagination":${JSON.stringify({ limit: plan.limit, has_more: page.hasMore, cursor })}`,
          ),
        );
    },
  );

  const readTarget = beforeValidation((request) => {
    const schema = prepare(request, 'read', 'archive_read');
    return { schema, id: recordId(request, schema) };
  });
  app.get(
    `${schemaBase}/:id/archive`,
    {
      ...archiveRoute,
      schema: { ...archiveRoute.schema, querystring: ArchiveReadQuery },
      schemaErrorFormatter: archiveReadProblems,
      preValidation: readTarget.preValidation,
    },
    async (request, reply) => {
      const { schema, id } = readTarget.of(request);
      const version = versionOf(request.query.version);
      const json = await archive.read(identityOf(request), schema, id, version);
      return reply.type('application/json').send(successBody(json, request.id));
    },
  );

  const unarchiveTarget = beforeValidation((request) => {
    const schema = prepare(request, 'update', 'unarchive');
    const write = recordWriteOf(request, schema);
    return { write, id: recordId(request, schema) };
  });
  app.post(
    `${schemaBase}/:id/unarchive`,
    {
      ...unarchiveRoute,
      schema: { ...unarchiveRoute.schema, body: UnarchiveBody },
      schemaErrorFormatter: unarchiveProblems,
      preValidation: unarchiveTarget.preValidation,
    },
    async (request, reply) => {
      const { write, id } = unarchiveTarget.of(request);
      const reason = parseReason(request.body.reason);
      return sendWriteResult(reply, await archive.unarchive(write, id, reason));
    },
  );
}
