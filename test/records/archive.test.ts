import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { validateSchemaDefinition } from '../../src/records/schemas/validate-definition.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const ticketsPath = 'acme/support/desk/tickets/v1';
const ticketsYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: tickets-v1 }
spec:
  org: acme
  app: support
  domain: desk
  object: tickets
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true, unique: true }
    - { name: status, type: enum, enum: [open, closed], required: true, filterable: true }
    - { name: priority, type: integer }
    - { name: body, type: json }
  access:
    roles: { create: [admin], read: [admin, viewer], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
    condition: { or: [{ field: status, op: eq, value: closed }, { field: deleted_at, op: exists, value: true }] }
`;
const day = 86_400_000;
type Data<T> = { data: T };
type Ticket = Record<string, unknown> & { id: string; version: number; code: string };

describe('records archive', () => {
  let app: RecordsTestApp;
  // The service's clock also judges token expiry, so the job under test has a clock of its own.
  const clock = new MovableClock();
  let archiveJob: ArchiveJob;
  const jobWith = (batchSize = 100) =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      batchSize,
    });
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'tickets.yaml': ticketsYaml } });
    archiveJob = jobWith();
  });
  after(() => app.close());

  let serial = 0;
  const create = async (overrides: Record<string, unknown> = {}) => {
    serial += 1;
    const response = await app.call('POST', `/api/${ticketsPath}`, {
      body: {
        code: `T-${serial}-${Math.random()}`,
        status: 'closed',
        priority: serial,
        body: { lines: [serial] },
        ...overrides,
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<Ticket>>().data;
  };
  const history = async (id: string) => {
    const response = await app.call('GET', `/api/${ticketsPath}/${id}/history?limit=1000`);
    return response.statusCode === 200 ? response.json<Data<Record<string, unknown>[]>>().data : [];
  };
  const count = async (sql: string, values: unknown[]) =>
    Number((await app.database.pool.query<{ n: string }>(sql, values)).rows[0]?.n);
  const hotRows = (id: string) =>
    count(`SELECT count(*) AS n FROM rec_acme.support__desk__tickets__v1 WHERE id = $1`, [id]);
  const hotHistory = (id: string) =>
    count(`SELECT count(*) AS n FROM hist_acme.support__desk__tickets__v1 WHERE record_id = $1`, [id]);
  /** Moves the clock past `afterDays` and runs the job; resolves with the count moved. */
  const archiveDue = async () => {
    clock.advance(31 * day);
    return archiveJob.runOnce();
  };

  test('spec.archive is validated: afterDays, condition fields and operators, unknown keys', () => {
    const spec = (archive: unknown) => ({
      org: 'acme',
      app: 'x',
      domain: 'y',
      object: 'z',
      version: 'v1',
      fields: [{ name: 'status', type: 'string' }],
      archive,
    });
    const reasons = (archive: unknown) => {
      const result = validateSchemaDefinition(spec(archive));
      return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.reason}`);
    };
    assert.deepEqual(reasons({ afterDays: 30, condition: { field: 'status', op: 'eq', value: 'x' } }), []);
    assert.deepEqual(reasons({ afterDays: 0 }), []);
    assert.match(reasons({ afterDays: -1 }).join(), /spec\.archive\.afterDays/);
    assert.match(reasons({ afterDays: 1.5 }).join(), /spec\.archive\.afterDays/);
    assert.match(reasons({}).join(), /spec\.archive\.afterDays/);
    assert.match(reasons('soon').join(), /spec\.archive: must be an object/);
    assert.match(reasons({ afterDays: 1, every: 'day' }).join(), /spec\.archive\.every/);
    assert.match(
      reasons({ afterDays: 1, condition: { field: 'nope', value: 1 } }).join(),
      /condition\.field.*nope/,
    );
    assert.match(
      reasons({ afterDays: 1, condition: { field: 'status', op: 'like', value: 1 } }).join(),
      /condition\.op/,
    );
    assert.match(reasons({ afterDays: 1, condition: { and: [] } }).join(), /condition\.and/);
    const withArchivedAt = validateSchemaDefinition({
      ...spec({ afterDays: 1 }),
      fields: [{ name: 'archived_at', type: 'timestamp' }],
    });
    assert.equal(withArchivedAt.ok, false);
  });

  test('the job archives only due, matching records (injected clock), audits ARCHIVE, keeps the chain valid', async () => {
    const closed = await create();
    const open = await create({ status: 'open' });
    const deleted = await create({ status: 'open' });
    assert.equal((await app.call('DELETE', `/api/${ticketsPath}/${deleted.id}`)).statusCode, 204);
    assert.equal(await archiveJob.runOnce(), 0, 'nothing is 30 days old yet');
    assert.ok((await archiveDue()) >= 2);
    assert.equal(await hotRows(closed.id), 0);
    assert.equal(await hotHistory(closed.id), 0);
    assert.equal(await hotRows(deleted.id), 0, 'soft-deleted records match the condition');
    assert.equal(await hotRows(open.id), 1, 'an open record does not match');
    assert.equal((await app.call('GET', `/api/${ticketsPath}/${closed.id}`)).statusCode, 404);
    const audit = await app.call('GET', `/api/platform/audit?schema=${ticketsPath}&entity_id=${closed.id}`);
    const operations = audit.json<Data<{ operation: string }[]>>().data.map((event) => event.operation);
    assert.deepEqual(operations, ['ARCHIVE', 'CREATE']);
    const verify = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: ticketsPath, id: closed.id },
    });
    const { valid, events, tampering_detected } = verify.json<Data<Record<string, unknown>>>().data;
    assert.deepEqual(
      { valid, events, tampering_detected },
      { valid: true, events: 2, tampering_detected: 0 },
    );
    const archived = await app.call('GET', `/api/${ticketsPath}/${closed.id}/archive`);
    assert.equal(archived.statusCode, 200, archived.body);
    const record = archived.json<Data<Ticket & { archived_at: string }>>().data;
    assert.equal(record.code, closed.code);
    const archivedAt = new Date(record.archived_at).getTime();
    assert.ok(archivedAt > Date.now() + 30 * day, "archived_at is the injected clock's time");
  });

  test('archive then unarchive: nothing lost (row counts and content identical, history included)', async () => {
    const ticket = await create({ status: 'open', body: { nested: { a: [1, 'two', null] } } });
    const patched = await app.call('PATCH', `/api/${ticketsPath}/${ticket.id}`, {
      body: { version: 1, status: 'closed', priority: 42 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const before = (await app.call('GET', `/api/${ticketsPath}/${ticket.id}`)).json<Data<Ticket>>().data;
    const eventsBefore = await history(ticket.id);
    const hotBefore = await count(`SELECT count(*) AS n FROM rec_acme.support__desk__tickets__v1`, []);
    assert.equal(eventsBefore.length, 2);

    await archiveDue();
    assert.equal(await hotRows(ticket.id), 0);
    assert.equal(await hotHistory(ticket.id), 0);
    assert.equal(
      await count(
        `SELECT count(*) AS n FROM records_archive.history WHERE record_id = $1 AND operation <> 'ARCHIVE'`,
        [ticket.id],
      ),
      2,
    );
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = $1`, [ticket.id]),
      1,
    );

    const back = await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, {
      body: { reason: 'customer reopened it' },
      actor: 'bob',
    });
    assert.equal(back.statusCode, 200, back.body);
    const restored = back.json<Data<Ticket>>().data;
    const { version, updated_at, updated_by, ...content } = restored;
    const { version: v0, updated_at: u0, updated_by: b0, ...contentBefore } = before;
    assert.deepEqual(content, contentBefore, 'every field and system field but the bookkeeping is identical');
    assert.equal(version, v0 + 1);
    assert.equal(updated_by, 'bob');
    assert.ok(String(updated_at) > String(u0));
    assert.equal(b0, 'alice');
    const read = await app.call('GET', `/api/${ticketsPath}/${ticket.id}`);
    assert.deepEqual(read.json<Data<Ticket>>().data, restored);
    assert.equal(await count(`SELECT count(*) AS n FROM rec_acme.support__desk__tickets__v1`, []), hotBefore);

    const eventsAfter = await history(ticket.id);
    assert.deepEqual(eventsAfter.slice(0, 2), eventsBefore, 'the archived events come back identical');
    assert.deepEqual(
      eventsAfter.slice(2).map((event) => event.operation),
      ['ARCHIVE', 'UNARCHIVE'],
    );
    const unarchived = eventsAfter[3]!;
    assert.equal(unarchived.reason, 'customer reopened it');
    assert.equal(unarchived.actor, 'bob');
    assert.equal(unarchived.old_value, null);
    assert.equal((unarchived.new_value as Ticket).code, ticket.code);
    const audit = await app.call('GET', `/api/platform/audit?schema=${ticketsPath}&entity_id=${ticket.id}`);
    assert.deepEqual(
      audit.json<Data<{ operation: string }[]>>().data.map((event) => event.operation),
      ['UNARCHIVE', 'ARCHIVE', 'UPDATE', 'CREATE'],
    );
    const verify = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: ticketsPath, id: ticket.id },
    });
    assert.equal(verify.json<Data<{ valid: boolean }>>().data.valid, true);
    assert.equal(
      (await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive`)).statusCode,
      404,
      'no longer archived',
    );
    // Cold storage is append-only: the archived copy stays.
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = $1`, [ticket.id]),
      1,
    );

    // Archived again later: one more copy, the history events are not duplicated.
    await archiveDue();
    assert.equal(await hotRows(ticket.id), 0);
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = $1`, [ticket.id]),
      2,
    );
    assert.equal(
      await count(
        `SELECT count(DISTINCT event_id) - count(*) AS n FROM records_archive.history WHERE record_id = $1`,
        [ticket.id],
      ),
      0,
    );
    const again = await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, {
      body: { reason: 'again' },
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal((await history(ticket.id)).length, 6);
  });

  test('GET archive?version=N: the archived copy, an earlier version from archived history, 404s', async () => {
    const ticket = await create({ status: 'open', priority: 1 });
    await app.call('PATCH', `/api/${ticketsPath}/${ticket.id}`, {
      body: { version: 1, status: 'closed', priority: 2 },
    });
    const hot = await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive`);
    assert.equal(hot.statusCode, 404, 'a record in hot storage is not archived');
    assert.equal(hot.json<{ code: string }>().code, 'ENTITY_NOT_FOUND');
    await archiveDue();
    const latest = await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive`);
    assert.equal(latest.json<Data<Ticket>>().data.version, 2);
    const v2 = await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive?version=2`);
    assert.equal(v2.json<Data<Ticket>>().data.priority, 2);
    const v1 = await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive?version=1`);
    assert.equal(v1.statusCode, 200, v1.body);
    assert.equal(v1.json<Data<Ticket>>().data.priority, 1);
    assert.equal(v1.json<Data<Ticket>>().data.status, 'open');
    assert.match(String(v1.json<Data<Ticket>>().data.archived_at), /Z$/);
    assert.equal(
      (await app.call('GET', `/api/${ticketsPath}/${ticket.id}/archive?version=9`)).statusCode,
      404,
    );
    const unknown = await app.call('GET', `/api/${ticketsPath}/00000000-0000-4000-8000-000000000000/archive`);
    assert.equal(unknown.statusCode, 404);
  });

  test('archive query: the query DSL over cold storage, select and limit, read-only', async () => {
    const marker = `Q-${Date.now()}`;
    const tickets = [
      await create({ code: `${marker}-a`, priority: 500 }),
      await create({ code: `${marker}-b`, priority: 501 }),
    ];
    await archiveDue();
    const response = await app.call('POST', `/api/${ticketsPath}/archive/query`, {
      body: {
        where: {
          and: [
            { field: 'code', op: 'startsWith', value: marker },
            { field: 'priority', op: 'gte', value: 500 },
          ],
        },
        select: ['id', 'code'],
        limit: 10,
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<
      Data<{ id: string; code: string; archived_at: string }[]> & { pagination: { has_more: boolean } }
    >();
    assert.deepEqual(body.data.map((row) => row.id).sort(), tickets.map((ticket) => ticket.id).sort());
    assert.deepEqual(Object.keys(body.data[0]!).sort(), ['archived_at', 'code', 'id']);
    assert.equal(body.pagination.has_more, false);
    const one = await app.call('POST', `/api/${ticketsPath}/archive/query`, {
      body: { where: { field: 'code', op: 'startsWith', value: marker }, limit: 1 },
    });
    assert.equal(one.json<Data<unknown[]>>().data.length, 1);
    assert.equal(one.json<{ pagination: { has_more: boolean } }>().pagination.has_more, true);
    // Hot storage is untouched by a query.
    assert.equal(await hotRows(tickets[0]!.id), 0);
  });

  test('unarchive: a record that is not archived is 404; a taken unique value is 409; bad reasons are 400', async () => {
    const live = await create({ status: 'open' });
    const notArchived = await app.call('POST', `/api/${ticketsPath}/${live.id}/unarchive`, {
      body: { reason: 'x' },
    });
    assert.equal(notArchived.statusCode, 404);
    assert.equal(notArchived.json<{ code: string }>().code, 'ENTITY_NOT_FOUND');
    const never = await app.call(
      'POST',
      `/api/${ticketsPath}/00000000-0000-4000-8000-000000000000/unarchive`,
      {
        body: { reason: 'x' },
      },
    );
    assert.equal(never.statusCode, 404);

    const ticket = await create();
    await archiveDue();
    const twin = await create({ code: ticket.code, status: 'open' });
    const taken = await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, {
      body: { reason: 'x' },
    });
    assert.equal(taken.statusCode, 409, taken.body);
    assert.equal(taken.json<{ code: string }>().code, 'UNIQUE_CONSTRAINT_VIOLATION');
    assert.equal(await hotRows(ticket.id), 0, 'the failed unarchive left nothing behind');
    assert.equal(await hotHistory(ticket.id), 0);
    await app.call('DELETE', `/api/${ticketsPath}/${twin.id}`);
    for (const body of [
      {},
      { reason: '' },
      { reason: 5 },
      { reason: 'x'.repeat(2001) },
      { reason: 'ok', extra: 1 },
      [],
    ])
      assert.equal(
        (await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, { body })).statusCode,
        400,
        JSON.stringify(body),
      );
    const viewer = await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, {
      body: { reason: 'x' },
      roles: ['viewer'],
    });
    assert.equal(viewer.statusCode, 403);
    const ok = await app.call('POST', `/api/${ticketsPath}/${ticket.id}/unarchive`, {
      body: { reason: 'x' },
    });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('hostile input is a 4xx in the error body, never a 500', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cases: [string, string, unknown][] = [
      ['GET', `/api/${ticketsPath}/${id}/archive?version=abc`, undefined],
      ['GET', `/api/${ticketsPath}/${id}/archive?version=0`, undefined],
      ['GET', `/api/${ticketsPath}/${id}/archive?version=99999999999`, undefined],
      ['GET', `/api/${ticketsPath}/${id}/archive?version=1&version=2`, undefined],
      ['GET', `/api/${ticketsPath}/${id}/archive?other=1`, undefined],
      ['GET', `/api/${ticketsPath}/not-a-uuid/archive`, undefined],
      ['GET', `/api/${ticketsPath}/'%3B%20DROP%20TABLE%20x/archive`, undefined],
      ['POST', `/api/${ticketsPath}/not-a-uuid/unarchive`, { reason: 'x' }],
      ['POST', `/api/${ticketsPath}/archive/query`, []],
      ['POST', `/api/${ticketsPath}/archive/query`, { sort: [{ field: 'id' }] }],
      ['POST', `/api/${ticketsPath}/archive/query`, { where: { field: 'nope', value: 1 } }],
      [
        'POST',
        `/api/${ticketsPath}/archive/query`,
        { where: { field: 'priority', op: 'gt', value: 'DROP' } },
      ],
      [
        'POST',
        `/api/${ticketsPath}/archive/query`,
        { where: { field: 'priority', op: 'gt', value: '1e999999' } },
      ],
      ['POST', `/api/${ticketsPath}/archive/query`, { where: { field: 'code', value: 'a\u0000b' } }],
      [
        'POST',
        `/api/${ticketsPath}/archive/query`,
        { where: { field: 'created_at', op: 'lt', value: 'yesterday' } },
      ],
      ['POST', `/api/${ticketsPath}/archive/query`, { limit: -1 }],
      ['POST', `/api/${ticketsPath}/archive/query`, { select: ['"; DROP TABLE x; --'] }],
      ['POST', `/api/acme/nope/nope/nope/v1/archive/query`, {}],
    ];
    for (const [method, url, body] of cases) {
      const response = await app.call(method as 'GET' | 'POST', url, body === undefined ? {} : { body });
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${method} ${url}: ${response.statusCode} ${response.body}`,
      );
      assert.equal(typeof response.json<{ code: string }>().code, 'string');
    }
  });

  test('two job instances share the work with SKIP LOCKED: each due record is archived once', async () => {
    const tickets = await Promise.all(Array.from({ length: 12 }, () => create()));
    clock.advance(31 * day);
    const [a, b] = await Promise.all([jobWith(3).runOnce(), jobWith(3).runOnce()]);
    assert.ok(a + b >= tickets.length);
    const ids = tickets.map((ticket) => ticket.id);
    assert.equal(
      await count(
        `SELECT count(*) AS n FROM rec_acme.support__desk__tickets__v1 WHERE id = ANY($1::uuid[])`,
        [ids],
      ),
      0,
    );
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = ANY($1::uuid[])`, [
        ids,
      ]),
      tickets.length,
    );
  });

  test('the archive query has its own rate limit of 50 per minute', async () => {
    const query = () =>
      app.call('POST', `/api/${ticketsPath}/archive/query`, { body: { limit: 1 }, actor: 'limited-reader' });
    for (let index = 0; index < 50; index += 1) assert.equal((await query()).statusCode, 200);
    const refused = await query();
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json<{ code: string }>().code, 'RATE_LIMITED');
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    const list = await app.call('GET', `/api/${ticketsPath}?limit=1`, { actor: 'limited-reader' });
    assert.equal(list.statusCode, 200, 'other endpoints keep their own budget');
  });
});
