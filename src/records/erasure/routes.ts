import Type from 'typebox';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { ArchiveFiles } from '../archive/files/archive-files.js';
import { AuthErrors } from '../auth/auth-errors.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import { parseReason } from '../history/reason.js';
import { partProblems } from '../http/route-schema.js';
import { platformAdminRole } from '../role-bindings/routes.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { eraseRecord } from './erase-record.js';

/** What the erasure route needs. */
export interface ErasureRouteDependencies {
  /** The owner's pool: erasure changes what only the owner may (history, audit, cold storage). */
  ownerPool: Pool;
  registry: SchemaRegistry;
  files: ArchiveFiles | undefined;
}

const Erased = Type.Object({
  schema: Type.String(),
  id: Type.String(),
  hot: Type.Boolean(),
  history_rows: Type.Integer(),
  staged_copies: Type.Integer(),
  file_sets: Type.Integer(),
  snapshot_rows: Type.Integer(),
  audit_events: Type.Integer(),
});

const EraseBody = Type.Object(
  {
    schema: Type.Optional(Type.Unknown()),
    id: Type.Optional(Type.Unknown()),
    reason: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

function problem(field: string, reason: string) {
  return RecordsErrors.validation(`Invalid ${field}`, [{ field, reason }]);
}

const eraseProblems = partProblems({
  body: {
    notObject: () => problem('(body)', 'must be {schema, id, reason}'),
    unknownMember: (name) => problem(name.slice(0, 100), 'is not a property; send {schema, id, reason}'),
  },
});

/**
 * `POST /api/platform/erase {schema, id, reason}` (role `platform-admin`, scope `admin`): erases
 * one record's data from hot storage, history, snapshots and the archive, and records the erasure
 * in its audit chain (erasure/erase-record.ts). 200 with what was removed; 404 when nothing of
 * the record is known.
 */
export function registerErasureRoutes(app: HttpServer, deps: ErasureRouteDependencies): void {
  app.post(
    '/api/platform/erase',
    {
      config: { recordsScope: 'admin' },
      schema: {
        tags: ['platform'],
        security: [{ bearer: [] }],
        summary: "Erase one record's data",
        body: EraseBody,
        response: {
          200: Type.Object({ data: Erased, status: Type.String(), requestId: Type.String() }),
        },
      },
      schemaErrorFormatter: eraseProblems,
    },
    async (request, reply) => {
      const identity = identityOf(request);
      if (!identity.roles.includes(platformAdminRole))
        throw AuthErrors.forbidden('erase records', platformAdminRole);
      const body = request.body;
      if (typeof body.schema !== 'string' || body.schema.length > 300)
        throw problem('schema', 'must be a schema path');
      const schema = deps.registry.resolve(body.schema);
      if (typeof body.id !== 'string' || !uuidPattern.test(body.id))
        throw problem('id', 'must be a record id (UUID)');
      const id = body.id.toLowerCase();
      const reason = parseReason(body.reason);
      const outcome = await eraseRecord(deps.ownerPool, deps.files, schema, id, identity.actor_id, reason);
      if (outcome === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
      return reply.send({
        data: { schema: schema.path, id, ...outcome },
        status: 'success',
        requestId: request.id,
      });
    },
  );
}
