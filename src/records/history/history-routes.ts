import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseExactJson, stringifyExactJson } from '../../platform/json/exact-json.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import type { RecordReader } from '../access/record-reader.js';
import { writeSession } from '../access/write-guard.js';
import { maskChange } from '../access/channel-masks.js';
import { maskRecord } from '../access/field-access.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { idempotencyOf } from '../http/idempotency-header.js';
import { sendRecordPage } from '../http/page-response.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { sendWriteResult } from '../http/write-reply.js';
import type { CursorCodec } from '../records/cursor.js';
import { parseListQuery } from '../records/list-query.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { parseLimit, parseOffset } from '../records/select-plan.js';
import type { WritePipeline } from '../records/write-pipeline.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { diffStates } from './diff.js';
import { hasHistory, historyAfter, listHistory, stateJsonAt } from './history-repository.js';
import { parseInstant } from './instant.js';
import { presentHistoryEvent, presentRecordState } from './present.js';
import { restoreAsCaller } from './restore-as-caller.js';
import { presentSnapshot, snapshotTable, type SnapshotJob } from './snapshot-job.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';

/** What the time machine routes need. */
export interface HistoryRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  pipeline: WritePipeline;
  cursors: CursorCodec;
  snapshots: SnapshotJob;
}

const historyRoute = scopedRoute('history');
const replayPage = 200;
const maxReason = 2000;

function requireTimeMachine(schema: CompiledSchema): void {
  if (!schema.definition.timeMachine)
    throw RecordsErrors.validation(`${schema.path} keeps no history`, [
      { field: 'timeMachine', reason: 'the schema needs spec.timeMachine: true' },
    ]);
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw RecordsErrors.validation('The body must be a JSON object');
  return body as Record<string, unknown>;
}

function reasonOf(body: Record<string, unknown>): string {
  const reason = body.reason;
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > maxReason)
    throw RecordsErrors.validation('Invalid reason', [
      { field: 'reason', reason: `must be a non-empty string of at most ${maxReason} characters` },
    ]);
  return reason;
}

function onlyKeys(record: Record<string, unknown>, allowed: string[], where: string): void {
  for (const key of Object.keys(record))
    if (!allowed.includes(key))
      throw RecordsErrors.validation(`Unknown ${where} ${key.slice(0, 100)}`, [
        { field: key.slice(0, 100), reason: `is not one of ${allowed.join(', ')}` },
      ]);
}

/**
 * The time machine: `GET /{id}/history` (events, or with `at` the state at an instant),
 * `GET /{id}/diff`, `POST /{id}/restore`, `GET /{id}/replay` (Server-Sent Events) and the
 * snapshot endpoints under `/history/snapshot`. Only for schemas with `timeMachine: true`.
 */
export function registerHistoryRoutes(app: HttpServer, deps: HistoryRouteDependencies): void {
  const { pipeline, snapshots, cursors, access, reader } = deps;
  const { prepare, recordId } = schemaRequest(deps.registry, deps.access);
  const json = (reply: FastifyReply, request: FastifyRequest, data: unknown, status = 200) =>
    reply
      .status(status)
      .type('application/json')
      .send(successBody(stringifyExactJson(data), request.id));
  // States as stored, every digit of their numbers kept (see parseExactJson).
  const stateAt = async (db: Queryable, schema: CompiledSchema, id: string, at: string) => {
    const json = await stateJsonAt(db, schema, id, at);
    return json === undefined ? undefined : (parseExactJson(json) as Record<string, unknown>);
  };

  app.get(`${schemaBase}/:id/history`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'history');
    requireTimeMachine(schema);
    const identity = identityOf(request);
    const id = recordId(request, schema);
    const query = request.query as Record<string, unknown>;
    // Layers 2, 4 and 7 on the record first (one access session), layer 5 on what is shown.
    const readTrail = <T>(work: (db: Queryable) => Promise<T>) =>
      reader.read(identity, [schema], async (db) => {
        await reader.requireReadable(db, identity, schema, id);
        return work(db);
      });
    if (query.at !== undefined) {
      onlyKeys(query, ['at'], 'parameter');
      const at = parseInstant(query.at, 'at');
      const state = await readTrail((db) => stateAt(db, schema, id, at));
      if (!state) throw RecordsErrors.entityNotFound(schema.path, id);
      return json(reply, request, maskRecord(identity, schema, presentRecordState(state)));
    }
    onlyKeys(query, ['limit', 'offset'], 'parameter');
    const limit = parseLimit(query.limit);
    const offset = query.offset === undefined ? 0 : parseOffset(query.offset, limit);
    const page = await readTrail((db) => listHistory(db, schema, id, limit, offset));
    if (page.total === 0) throw RecordsErrors.entityNotFound(schema.path, id);
    return reply
      .type('application/json')
      .send(
        successBody(
          stringifyExactJson(page.rows.map((row) => maskChange(identity, schema, presentHistoryEvent(row)))),
          request.id,
          `,"pagination":${JSON.stringify({ limit, offset, total: page.total })}`,
        ),
      );
  });

  app.get(`${schemaBase}/:id/diff`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'diff');
    requireTimeMachine(schema);
    const id = recordId(request, schema);
    const query = request.query as Record<string, unknown>;
    onlyKeys(query, ['from', 'to'], 'parameter');
    const from = parseInstant(query.from, 'from');
    const to = parseInstant(query.to, 'to');
    const identity = identityOf(request);
    const [before, after] = await reader.read(identity, [schema], async (db) => {
      await reader.requireReadable(db, identity, schema, id);
      return [await stateAt(db, schema, id, from), await stateAt(db, schema, id, to)];
    });
    if (!before && !after) throw RecordsErrors.entityNotFound(schema.path, id);
    // Both sides masked: a hidden field is null on each, so it shows in no part of the diff.
    const shown = (state: Record<string, unknown> | undefined) =>
      state ? maskRecord(identity, schema, presentRecordState(state)) : null;
    return json(reply, request, diffStates(shown(before), shown(after)));
  });

  app.post(`${schemaBase}/:id/restore`, scopedRoute('restore'), async (request, reply) => {
    const schema = prepare(request, 'update', 'restore');
    requireTimeMachine(schema);
    const identity = identityOf(request);
    const id = recordId(request, schema);
    const body = bodyOf(request);
    onlyKeys(body, ['at', 'reason'], 'property');
    const at = parseInstant(body.at, 'at');
    const reason = reasonOf(body);
    const result = await pipeline.run({
      schema,
      identity,
      operation: 'update',
      idempotency: idempotencyOf(request, identity, schema),
      begin: writeSession(access, identity, schema),
      execute: async (db) => {
        const json = await restoreAsCaller(db, reader, identity, schema, id, at, reason);
        return { recordId: id, response: { status: 201, body: successBody(json, request.id) } };
      },
    });
    return sendWriteResult(reply, result);
  });

  app.get(`${schemaBase}/:id/replay`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'replay');
    requireTimeMachine(schema);
    const id = recordId(request, schema);
    const lastEventId = request.headers['last-event-id'] ?? '0';
    if (typeof lastEventId !== 'string' || !/^\d{1,18}$/.test(lastEventId))
      throw RecordsErrors.validation('Invalid Last-Event-ID', [
        { field: 'Last-Event-ID', reason: 'must be an event_id' },
      ]);
    const resumeAfter: string = lastEventId;
    const identity = identityOf(request);
    const known = await reader.read(identity, [schema], async (db) => {
      await reader.requireReadable(db, identity, schema, id);
      return hasHistory(db, schema, id);
    });
    if (!known) throw RecordsErrors.entityNotFound(schema.path, id);
    // Pages of events keep memory flat however long the history is. Each page is read in the
    // caller's access session: history rows are visible while their record is (derived-rows-rls.ts).
    async function* events() {
      let after = resumeAfter;
      for (;;) {
        const from = after;
        const rows = await reader.read(identity, [schema], (db) =>
          historyAfter(db, schema, id, from, replayPage),
        );
        for (const row of rows)
          yield `id: ${row.event_id}\ndata: ${stringifyExactJson(maskChange(identity, schema, presentHistoryEvent(row)))}\n\n`;
        if (rows.length < replayPage) return;
        after = rows[rows.length - 1]!.event_id;
      }
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/event-stream; charset=utf-8')
      .send(Readable.from(events()));
  });

  app.post(`${schemaBase}/history/snapshot`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'snapshot');
    requireTimeMachine(schema);
    const identity = identityOf(request);
    // Taking a snapshot writes no record; its rows are read later through every read layer. The
    // requester must still pass the read rules that need no record, as a list would.
    access.checkBefore(identity, schema, 'read');
    const body = bodyOf(request);
    onlyKeys(body, ['at', 'reason'], 'property');
    const at = parseInstant(body.at, 'at');
    const row = await snapshots.request(schema, at, reasonOf(body), identity.actor_id);
    return json(reply, request, presentSnapshot(row), 202);
  });

  const snapshotOf = async (request: FastifyRequest, schema: CompiledSchema) => {
    const snapshotId = (request.params as { snapshot_id: string }).snapshot_id;
    const row = uuidPattern.test(snapshotId)
      ? await snapshots.find(schema.path, snapshotId.toLowerCase())
      : undefined;
    if (!row)
      throw RecordsErrors.notFound(`No snapshot ${snapshotId.slice(0, 100)} of ${schema.path}`, {
        snapshot_id: snapshotId.slice(0, 100),
      });
    return row;
  };

  app.get(`${schemaBase}/history/snapshot/:snapshot_id`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'snapshot');
    const identity = identityOf(request);
    access.checkBefore(identity, schema, 'read');
    // The count covers every record: not for a caller who sees only some (layer 4).
    const count = access.view(identity, schema, { mask: false }).rowFilter === undefined;
    return json(reply, request, presentSnapshot(await snapshotOf(request, schema), { count }));
  });

  app.get(`${schemaBase}/history/snapshot/:snapshot_id/records`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'snapshot');
    const snapshot = await snapshotOf(request, schema);
    if (snapshot.status !== 'completed')
      throw RecordsErrors.validation(`Snapshot ${snapshot.snapshot_id} is ${snapshot.status}`, [
        { field: 'snapshot_id', reason: 'rows are readable once the snapshot is completed' },
      ]);
    const plan = parseListQuery(schema, request.query as Record<string, unknown>);
    const { page } = await reader.readPage(identityOf(request), schema, plan, cursors, [], {
      table: snapshotTable(snapshot.snapshot_id),
    });
    return sendRecordPage(reply, request, plan, page);
  });
}
