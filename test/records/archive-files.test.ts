import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { ArchiveFiles } from '../../src/records/archive/files/archive-files.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const path = 'acme/ops/fleet/readings/v1';
const table = 'rec_acme.ops__fleet__readings__v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: readings-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: readings
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true, unique: true, filterable: true, sortable: true }
    - { name: status, type: enum, enum: [open, closed], required: true, filterable: true }
    - { name: count, type: integer, filterable: true }
    - { name: amount, type: number, filterable: true }
    - { name: flag, type: boolean, filterable: true }
    - { name: seen_at, type: timestamp, filterable: true }
    - { name: day, type: date, filterable: true }
    - { name: ref, type: uuid, filterable: true }
    - { name: body, type: json, filterable: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
    condition: { field: status, op: eq, value: closed }
`;
const logsPath = 'acme/ops/fleet/logs/v1';
const logsYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: logs-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: logs
  version: v1
  timeMachine: true
  fields:
    - { name: line, type: string, required: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
    retainDays: 40
`;
const day = 86_400_000;
type Data<T> = { data: T; pagination?: { has_more: boolean; cursor: string | null } };
type Reading = Record<string, unknown> & { id: string; version: number };

describe('records archive in Parquet files', () => {
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const job = (files: boolean) =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      ...(files ? { files: app.service.archiveFiles, fileSetSize: 7 } : {}),
    });
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'readings.yaml': yaml, 'logs.yaml': logsYaml } });
  });
  after(() => app.close());

  let serial = 0;
  const create = async (overrides: Record<string, unknown> = {}) => {
    serial += 1;
    // Every third amount has more digits than a double holds: sent as raw JSON, kept exact.
    const exact = serial % 3 === 0 && !('amount' in overrides);
    const fields = {
      code: `R-${String(serial).padStart(4, '0')}`,
      status: 'closed',
      count: serial * 7 - 20,
      amount: exact ? 0 : serial / 4,
      flag: serial % 2 === 0,
      seen_at: new Date(Date.UTC(2026, 0, serial, 10, 30, 0, serial)).toISOString(),
      day: `2026-02-${String((serial % 28) + 1).padStart(2, '0')}`,
      ref: `00000000-0000-4000-8000-${String(serial).padStart(12, '0')}`,
      body: { serial, tags: ['a', serial % 2 === 0 ? 'even' : 'odd'], nested: { x: null } },
      ...overrides,
    };
    const text = JSON.stringify(fields).replace(
      '"amount":0',
      `"amount":12345678901234567890.12345678${serial}`,
    );
    const response = await app.call('POST', `/api/${path}`, {
      body: exact ? text : fields,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<Reading>>().data;
  };
  const count = async (sql: string, values: unknown[] = []) =>
    Number((await app.database.pool.query<{ n: string }>(sql, values)).rows[0]?.n);
  const query = async (body: Record<string, unknown>) => {
    const response = await app.call('POST', `/api/${path}/archive/query`, { body });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Data<Record<string, unknown>[]>>();
  };
  /** Every page of a query, through its cursors. */
  const allPages = async (body: Record<string, unknown>) => {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await query({ ...body, ...(cursor ? { cursor } : {}) });
      rows.push(...page.data);
      cursor = page.pagination?.cursor;
    } while (cursor);
    return rows;
  };
  const queries: Record<string, unknown>[] = [
    {},
    { where: { field: 'count', op: 'gt', value: 30 } },
    { where: { field: 'amount', op: 'gte', value: 1 } },
    { where: { field: 'amount', op: 'ne', value: '12345678901234567890.123456783' } },
    { where: { field: 'amount', op: 'gt', value: '12345678901234567890.123456785' } },
    { where: { field: 'flag', op: 'eq', value: true } },
    { where: { field: 'seen_at', op: 'lt', value: '2026-01-05T10:30:00+00:00' } },
    { where: { field: 'day', op: 'in', value: ['2026-02-03', '2026-02-07'] } },
    { where: { field: 'body', op: 'contains', value: { tags: ['even'] } } },
    { where: { not: { field: 'code', op: 'startsWith', value: 'R-000' } } },
    {
      where: {
        or: [
          { field: 'ref', op: 'lte', value: '00000000-0000-4000-8000-000000000004' },
          { field: 'count', op: 'exists', value: false },
        ],
      },
    },
    { where: { field: 'count', op: 'gt', value: 0 }, select: ['code', 'amount'], limit: 3 },
  ];

  test('export moves archived records, history and audit events into file sets; reads, queries, verify and unarchive see the same', async () => {
    const records: Reading[] = [];
    for (let index = 0; index < 17; index += 1) records.push(await create());
    const nullable = await create({ count: null, amount: null, flag: null, seen_at: null, body: null });
    records.push(nullable);
    const open = await create({ status: 'open' });
    const patched = await app.call('PATCH', `/api/${path}/${records[0]!.id}`, {
      body: { version: 1, count: 1000 },
    });
    assert.equal(patched.statusCode, 200, patched.body);

    clock.advance(31 * day);
    assert.equal(await job(false).runOnce(), records.length);
    // Staged in PostgreSQL: what every read answers before the export.
    const reads = new Map<string, string>();
    for (const record of records)
      reads.set(record.id, (await app.call('GET', `/api/${path}/${record.id}/archive`)).body);
    const versionOne = (await app.call('GET', `/api/${path}/${records[0]!.id}/archive?version=1`)).body;
    const answers = [];
    for (const body of queries) answers.push(await allPages(body));
    // Each query selects some archived records and leaves some out, so the comparison below says something.
    for (const [index, rows] of answers.entries())
      if (index > 0)
        assert.ok(rows.length > 0 && rows.length < records.length, `query ${index}: ${rows.length}`);
    const verifyBefore = (
      await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id: records[0]!.id } })
    ).json<Data<Record<string, unknown>>>().data;
    assert.equal(verifyBefore.valid, true);

    await job(true).runOnce();
    const ids = records.map((record) => record.id);
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = ANY($1::uuid[])`, [
        ids,
      ]),
      0,
    );
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.history WHERE record_id = ANY($1::uuid[])`, [
        ids,
      ]),
      0,
    );
    assert.equal(
      await count(`SELECT count(*) AS n FROM records.audit_events WHERE entity_id = ANY($1::uuid[])`, [ids]),
      0,
    );
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.files WHERE schema_path = $1`, [path]),
      3,
      '18 records in sets of 7',
    );
    assert.equal(
      await count(`SELECT sum(record_count) AS n FROM records_archive.files WHERE schema_path = $1`, [path]),
      18,
    );

    for (const record of records) {
      const read = await app.call('GET', `/api/${path}/${record.id}/archive`);
      assert.equal(
        read.body.replace(/"requestId":"[^"]*"/, ''),
        reads.get(record.id)!.replace(/"requestId":"[^"]*"/, ''),
      );
    }
    const versionOneAfter = (await app.call('GET', `/api/${path}/${records[0]!.id}/archive?version=1`)).body;
    assert.equal(
      versionOneAfter.replace(/"requestId":"[^"]*"/, ''),
      versionOne.replace(/"requestId":"[^"]*"/, ''),
    );
    for (const [index, body] of queries.entries())
      assert.deepEqual(await allPages(body), answers[index], `query ${JSON.stringify(body)}`);
    const verifyAfter = (
      await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id: records[0]!.id } })
    ).json<Data<Record<string, unknown>>>().data;
    assert.deepEqual(verifyAfter, verifyBefore);
    assert.equal((await app.call('GET', `/api/${path}/${open.id}/archive`)).statusCode, 404);

    // An archived id stays taken.
    const taken = await app.call('POST', `/api/${path}`, {
      body: { id: records[3]!.id, code: 'NEW-1', status: 'open' },
    });
    assert.equal(taken.statusCode, 409, taken.body);
    // Existence only: the manifest's id bounds rule sets out before any file is opened.
    const opened: string[] = [];
    const { store, engine } = app.service.archiveFiles;
    const counting = new ArchiveFiles(
      {
        location: store.location,
        putFile: (key, file) => store.putFile(key, file),
        localPath: (key) => {
          opened.push(key);
          return store.localPath(key);
        },
        get: (key) => store.get(key),
        delete: (key) => store.delete(key),
        list: (prefix) => store.list(prefix),
      },
      engine,
      captureLogs('fatal').logger,
    );
    assert.equal(await counting.holds(app.database.pool, path, records[3]!.id), true);
    assert.ok(opened.length > 0, 'the records files of the sets whose bounds admit it are read');
    assert.ok(opened.every((key) => key.endsWith('/records.parquet')));
    opened.length = 0;
    assert.equal(
      await counting.holds(app.database.pool, path, '00000000-0000-0000-0000-000000000000'),
      false,
    );
    assert.deepEqual(opened, [], 'an id below every set is ruled out by the manifest');
    assert.equal(await counting.holds(app.database.pool, path, open.id), false);

    // Unarchive brings the record back from its file, history and chain included.
    const historyBefore = (await app.call('GET', `/api/${path}/${records[0]!.id}/history?limit=100`))
      .statusCode;
    assert.equal(historyBefore, 404);
    const back = await app.call('POST', `/api/${path}/${records[0]!.id}/unarchive`, {
      body: { reason: 'audit' },
    });
    assert.equal(back.statusCode, 200, back.body);
    const events = (await app.call('GET', `/api/${path}/${records[0]!.id}/history?limit=100`)).json<
      Data<{ operation: string }[]>
    >().data;
    assert.deepEqual(
      events.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'ARCHIVE', 'UNARCHIVE'],
    );
    const verifyBack = (
      await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id: records[0]!.id } })
    ).json<Data<{ valid: boolean; events: number }>>().data;
    assert.deepEqual([verifyBack.valid, verifyBack.events], [true, 4]);
    assert.equal((await app.call('GET', `/api/${path}/${records[0]!.id}/archive`)).statusCode, 404);
    const rest = await allPages({});
    assert.equal(rest.length, records.length - 1);
    assert.ok(!rest.some((row) => row.id === records[0]!.id));

    // Archived again, then exported again: the new file set holds the newest copy.
    const closedAgain = await app.call('PATCH', `/api/${path}/${records[0]!.id}`, {
      body: { version: 3, count: 5 },
    });
    assert.equal(closedAgain.statusCode, 200, closedAgain.body);
    clock.advance(31 * day);
    assert.equal(await job(true).runOnce(), 1);
    const again = await app.call('GET', `/api/${path}/${records[0]!.id}/archive`);
    assert.equal(again.json<Data<Reading>>().data.count, 5);
    const verifyAgain = (
      await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id: records[0]!.id } })
    ).json<Data<{ valid: boolean; events: number }>>().data;
    assert.deepEqual([verifyAgain.valid, verifyAgain.events], [true, 6]);
    assert.equal((await allPages({})).length, records.length);
    void table;
  });

  test('retainDays deletes archived records past their age: staged rows, and file sets rewritten without them or removed', async () => {
    const line = async (text: string) => {
      const response = await app.call('POST', `/api/${logsPath}`, { body: { line: text } });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<Data<Reading>>().data.id;
    };
    const status = async (id: string) => (await app.call('GET', `/api/${logsPath}/${id}/archive`)).statusCode;
    const objects = async () => (await app.service.archiveFiles.store.list(`${logsPath}/`)).length;
    const eventsOf = (ids: string[]) =>
      count(`SELECT count(*) AS n FROM records.audit_events WHERE entity_id = ANY($1::uuid[])`, [ids]);
    // Archival instants within one UTC month, well past afterDays for records created now.
    const now = Date.now();
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 3, 1, 10);
    const at = (days: number) => {
      clock.offset = monthStart + days * day - Date.now();
    };
    const early = [await line('a'), await line('b'), await line('c'), await line('d')];
    at(0);
    await job(false).runOnce();
    const late = [await line('e'), await line('f'), await line('g')];
    at(5);
    await job(true).runOnce();
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.files WHERE schema_path = $1`, [logsPath]),
      1,
    );
    assert.equal(await objects(), 4, 'three Parquet files and a manifest');

    at(42);
    const staged = await line('h');
    await job(true).runOnce();
    const sets = await app.database.pool.query<{ record_count: number }>(
      `SELECT record_count FROM records_archive.files WHERE schema_path = $1 ORDER BY min_archived_at`,
      [logsPath],
    );
    assert.deepEqual(
      sets.rows,
      [{ record_count: 3 }, { record_count: 1 }],
      'the first set is rewritten without the four expired records; the new record has a set of its own',
    );
    for (const id of early) assert.equal(await status(id), 404);
    for (const id of late) assert.equal(await status(id), 200);
    assert.equal(await status(staged), 200);
    assert.equal(await eventsOf(early), 0);
    assert.equal(await objects(), 8, 'the replaced set is removed from the store');
    const verify = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: logsPath, id: late[0] },
    });
    assert.equal(verify.json<Data<{ valid: boolean }>>().data.valid, true);

    at(50);
    await job(true).runOnce();
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.files WHERE schema_path = $1`, [logsPath]),
      1,
    );
    assert.equal(await objects(), 4);
    for (const id of late) assert.equal(await status(id), 404);
    assert.equal(await status(staged), 200, 'archived on day 42, kept until day 82');

    at(90);
    await job(true).runOnce();
    assert.equal(await status(staged), 404);
    assert.equal(await objects(), 0);
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE record_id = $1`, [staged]),
      0,
    );
    assert.equal(await eventsOf([staged, ...late]), 0);
  });

  test('erasure removes one record everywhere (hot, history, files) and records it in the chain, which still verifies', async () => {
    const erase = (body: Record<string, unknown>, roles = ['platform-admin']) =>
      app.call('POST', '/api/platform/erase', { body, roles });
    const verify = async (id: string) =>
      (await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id } })).json<
        Data<{ valid: boolean; events: number; erased?: unknown[] }>
      >().data;
    const events = async (id: string) =>
      (await app.call('GET', `/api/platform/audit?schema=${path}&entity_id=${id}`)).json<
        Data<{ operation: string; old_value: unknown; new_value: unknown; erased_at?: string }[]>
      >().data;

    const hot = await create();
    assert.equal(
      (await app.call('PATCH', `/api/${path}/${hot.id}`, { body: { version: 1, count: 3 } })).statusCode,
      200,
    );
    assert.equal(
      (await erase({ schema: path, id: hot.id, reason: 'GDPR art. 17' }, ['admin'])).statusCode,
      403,
    );
    assert.equal((await erase({ schema: path, id: hot.id })).statusCode, 400, 'a reason is required');
    assert.equal((await erase({ schema: path, id: hot.id, reason: 'x', extra: 1 })).statusCode, 400);
    const erased = await erase({ schema: path, id: hot.id, reason: 'GDPR art. 17' });
    assert.equal(erased.statusCode, 200, erased.body);
    assert.deepEqual(erased.json<Data<Record<string, unknown>>>().data, {
      schema: path,
      id: hot.id,
      hot: true,
      history_rows: 2,
      staged_copies: 0,
      file_sets: 0,
      snapshot_rows: 0,
      audit_events: 2,
    });
    assert.equal((await app.call('GET', `/api/${path}/${hot.id}`)).statusCode, 404);
    const chain = await events(hot.id);
    assert.deepEqual(
      chain.map((event) => [
        event.operation,
        event.old_value,
        event.new_value,
        event.erased_at !== undefined,
      ]),
      [
        ['ERASE', null, { reason: 'GDPR art. 17' }, false],
        ['UPDATE', null, null, true],
        ['CREATE', null, null, true],
      ],
    );
    const checked = await verify(hot.id);
    assert.equal(checked.valid, true, JSON.stringify(checked));
    assert.equal(checked.events, 3);
    assert.equal(checked.erased?.length, 2);
    assert.equal(
      (await erase({ schema: path, id: '00000000-0000-4000-8000-999999999999', reason: 'x' })).statusCode,
      404,
    );

    // A record archived to files: its set is rewritten without it; its neighbours stay.
    const [gone, kept] = [await create(), await create()];
    clock.advance(31 * day);
    await job(true).runOnce();
    assert.equal((await app.call('GET', `/api/${path}/${gone.id}/archive`)).statusCode, 200);
    const fromFiles = await erase({ schema: path, id: gone.id, reason: 'customer request' });
    assert.equal(fromFiles.statusCode, 200, fromFiles.body);
    assert.equal(fromFiles.json<Data<{ file_sets: number }>>().data.file_sets, 1);
    assert.equal((await app.call('GET', `/api/${path}/${gone.id}/archive`)).statusCode, 404);
    assert.equal((await app.call('GET', `/api/${path}/${kept.id}/archive`)).statusCode, 200);
    assert.equal(
      (await app.service.archiveFiles.copiesOf(app.database.pool, path, gone.id)).length,
      0,
      'no file holds the record any more',
    );
    const archivedChain = await verify(gone.id);
    assert.equal(archivedChain.valid, true, JSON.stringify(archivedChain));
    assert.deepEqual(
      (await events(gone.id)).map((event) => event.operation),
      ['ERASE', 'ARCHIVE', 'CREATE'],
    );
    // Tampering with an erased event's link is still found.
    await app.database.pool.query(
      `UPDATE records.audit_events SET previous_hash = 'x' WHERE entity_id = $1 AND operation = 'ARCHIVE'`,
      [gone.id],
    );
    assert.equal((await verify(gone.id)).valid, false);
  });
});
