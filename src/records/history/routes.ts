import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringifyExactJson } from '../../platform/json/exact-json.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { AccessControl } from '../access/access-control.js';
import { identityOf } from '../auth/request-identity.js';
import { scopedRoute } from '../auth/scopes/scoped-operations.js';
import { RecordsErrors } from '../errors.js';
import { successBody } from '../http/envelope.js';
import { recordWriteOf } from '../http/record-write.js';
import { sendRecordPage } from '../http/page-response.js';
import { beforeValidation, unknownParameter } from '../http/route-schema.js';
import { schemaBase, schemaRequest } from '../http/schema-request.js';
import { sendWriteResult } from '../http/write-reply.js';
import { parseListQuery } from '../records/list-query.js';
import { parseLimit, parseOffset } from '../records/select-plan.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import { parseInstant } from './instant.js';
import { parseReason } from './reason.js';
import { DiffQuery, diffQueryProblems, InstantAndReason, instantAndReasonProblems } from './schemas.js';
import { requireTimeMachine, type HistoryService } from './history-service.js';

/** What the time machine routes need. */
export interface HistoryRouteDependencies {
  registry: SchemaRegistry;
  access: AccessControl;
  history: HistoryService;
}

const historyRoute = scopedRoute('history');
const eventsParameters = ['limit', 'offset'];
const atParameters = ['at'];

/** 400 naming the first parameter of `query` not in `allowed` (the parameters depend on each other). */
function onlyParameters(query: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(query)) if (!allowed.includes(key)) throw unknownParameter(allowed)(key);
}

/**
 * The time machine: `GET /{id}/history` (events, or with `at` the state at an instant),
 * `GET /{id}/diff`, `POST /{id}/restore`, `GET /{id}/replay` (Server-Sent Events) and the
 * snapshot endpoints under `/history/snapshot`. Only for schemas with `timeMachine: true`.
 */
export function registerHistoryRoutes(app: HttpServer, deps: HistoryRouteDependencies): void {
  const { history } = deps;
  const { prepare, recordId } = schemaRequest(deps.registry, deps.access);
  const json = (reply: FastifyReply, request: FastifyRequest, data: unknown, status = 200) =>
    reply
      .status(status)
      .type('application/json')
      .send(successBody(stringifyExactJson(data), request.id));
  // The schema, route RBAC, the time machine and the record id come before the body or query.
  const timeMachineRecord = (label: string, operation: 'read' | 'update') =>
    beforeValidation((request) => {
      const schema = prepare(request, operation, label);
      requireTimeMachine(schema);
      return { schema, id: recordId(request, schema) };
    });

  app.get(`${schemaBase}/:id/history`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'history');
    requireTimeMachine(schema);
    const identity = identityOf(request);
    const id = recordId(request, schema);
    // Which parameters are allowed depends on whether `at` is given: checked here, not by a schema.
    const query = request.query as Record<string, unknown>;
    if (query.at !== undefined) {
      onlyParameters(query, atParameters);
      const at = parseInstant(query.at, 'at');
      return json(reply, request, await history.stateAt(identity, schema, id, at));
    }
    onlyParameters(query, eventsParameters);
    const limit = parseLimit(query.limit);
    const offset = query.offset === undefined ? 0 : parseOffset(query.offset, limit);
    const page = await history.events(identity, schema, id, limit, offset);
    return reply
      .type('application/json')
      .send(
        successBody(
          stringifyExactJson(page.events),
          request.id,
          `,"pagination":${JSON.stringify({ limit, offset, total: page.total })}`,
        ),
      );
  });

  const diffTarget = timeMachineRecord('diff', 'read');
  app.get(
    `${schemaBase}/:id/diff`,
    {
      ...historyRoute,
      schema: { ...historyRoute.schema, querystring: DiffQuery },
      schemaErrorFormatter: diffQueryProblems,
      preValidation: diffTarget.preValidation,
    },
    async (request, reply) => {
      const { schema, id } = diffTarget.of(request);
      const from = parseInstant(request.query.from, 'from');
      const to = parseInstant(request.query.to, 'to');
      return json(reply, request, await history.diff(identityOf(request), schema, id, from, to));
    },
  );

  const restoreTarget = timeMachineRecord('restore', 'update');
  const restoreRoute = scopedRoute('restore');
  app.post(
    `${schemaBase}/:id/restore`,
    {
      ...restoreRoute,
      schema: { ...restoreRoute.schema, body: InstantAndReason },
      schemaErrorFormatter: instantAndReasonProblems,
      preValidation: restoreTarget.preValidation,
    },
    async (request, reply) => {
      const { schema, id } = restoreTarget.of(request);
      const write = recordWriteOf(request, schema);
      const at = parseInstant(request.body.at, 'at');
      const reason = parseReason(request.body.reason);
      return sendWriteResult(reply, await history.restore(write, id, at, reason));
    },
  );

  app.get(`${schemaBase}/:id/replay`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'replay');
    requireTimeMachine(schema);
    const id = recordId(request, schema);
    const lastEventId = request.headers['last-event-id'] ?? '0';
    if (typeof lastEventId !== 'string' || !/^\d{1,18}$/.test(lastEventId))
      throw RecordsErrors.validation('Invalid Last-Event-ID', [
        { field: 'Last-Event-ID', reason: 'must be an event_id' },
      ]);
    const events = await history.replay(identityOf(request), schema, id, lastEventId);
    async function* frames() {
      for await (const { eventId, event } of events)
        yield `id: ${eventId}\ndata: ${stringifyExactJson(event)}\n\n`;
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/event-stream; charset=utf-8')
      .send(Readable.from(frames()));
  });

  const snapshotSchema = beforeValidation((request) => {
    const schema = prepare(request, 'read', 'snapshot');
    requireTimeMachine(schema);
    const identity = identityOf(request);
    history.authorizeSnapshot(identity, schema);
    return { schema, identity };
  });
  app.post(
    `${schemaBase}/history/snapshot`,
    {
      ...historyRoute,
      schema: { ...historyRoute.schema, body: InstantAndReason },
      schemaErrorFormatter: instantAndReasonProblems,
      preValidation: snapshotSchema.preValidation,
    },
    async (request, reply) => {
      const { schema, identity } = snapshotSchema.of(request);
      const at = parseInstant(request.body.at, 'at');
      const reason = parseReason(request.body.reason);
      return json(reply, request, await history.requestSnapshot(identity, schema, at, reason), 202);
    },
  );

  const snapshotIdOf = (request: FastifyRequest) => (request.params as { snapshot_id: string }).snapshot_id;

  app.get(`${schemaBase}/history/snapshot/:snapshot_id`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'snapshot');
    return json(reply, request, await history.snapshot(identityOf(request), schema, snapshotIdOf(request)));
  });

  app.get(`${schemaBase}/history/snapshot/:snapshot_id/records`, historyRoute, async (request, reply) => {
    const schema = prepare(request, 'read', 'snapshot');
    const snapshot = await history.completedSnapshot(schema, snapshotIdOf(request));
    const plan = parseListQuery(schema, request.query as Record<string, unknown>);
    return sendRecordPage(
      reply,
      request,
      plan,
      await history.snapshotPage(identityOf(request), schema, snapshot, plan),
    );
  });
}
