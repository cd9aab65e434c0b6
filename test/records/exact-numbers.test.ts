import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type Body, type RecordsTestApp } from './support/records-app.js';

const measuresPath = 'acme/precision/test/measures/v1';
const measuresYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata:
  name: measures-v1
spec:
  org: acme
  app: precision
  domain: test
  object: measures
  version: v1
  timeMachine: true
  fields:
    - { name: label, type: string, filterable: true }
    - { name: count, type: integer, filterable: true }
    - { name: small, type: integer, min: 0, max: 100 }
    - { name: capped, type: integer, max: 9007199254740992 }
    - { name: ratio, type: number, filterable: true }
    - { name: share, type: number, min: 0, max: 1 }
    - { name: doc, type: json }
    - { name: secret, type: string }
  access:
    roles:
      create: [admin, clerk]
      read: [admin, clerk]
      update: [admin, clerk]
      delete: [admin]
    fieldAccess:
      - { field: secret, read: [admin] }
  archive:
    afterDays: 30
    condition: { field: label, op: eq, value: cold }
`;
const table = 'rec_acme.precision__test__measures__v1';

describe('records stores numbers a 64-bit float cannot hold exactly, or refuses them; never rounds', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'measures.yaml': measuresYaml } });
  });
  after(() => app.close());

  /** Sends `json` as written: a JavaScript number could not carry these digits to the server. */
  const send = (method: 'POST' | 'PATCH', url: string, json: string, headers: Record<string, string> = {}) =>
    app.call(method, url, { body: json, headers: { 'content-type': 'application/json', ...headers } });
  const stored = async (id: string) =>
    (
      await app.database.pool.query<Record<string, string>>(
        `SELECT count::text, small::text, ratio::text, share::text, doc::text FROM ${table} WHERE id = $1`,
        [id],
      )
    ).rows[0];
  const problems = (body: string) =>
    (JSON.parse(body) as Body).details.errors as { field: string; reason: string }[];

  test('create keeps every digit of integer, number and json fields, in the database and in the answers', async () => {
    const created = await send(
      'POST',
      `/api/${measuresPath}`,
      '{"label":"exact","count":9007199254740993,"ratio":0.1234567890123456789,' +
        '"doc":{"n":12345678901234567890,"list":[1,0.30000000000000000001],"s":"kept"}}',
    );
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.body, /"count" ?: ?9007199254740993[,}]/);
    assert.match(created.body, /"ratio" ?: ?0\.1234567890123456789[,}]/);
    assert.match(created.body, /12345678901234567890/);
    assert.match(created.body, /0\.30000000000000000001/);
    const id = (created.json() as Body).data.id as string;
    const row = await stored(id);
    assert.equal(row?.count, '9007199254740993');
    assert.equal(row?.ratio, '0.1234567890123456789');
    assert.deepEqual(
      row?.doc,
      '{"n": 12345678901234567890, "s": "kept", "list": [1, 0.30000000000000000001]}',
    );
    const read = await app.call('GET', `/api/${measuresPath}/${id}`);
    assert.match(read.body, /"count" ?: ?9007199254740993[,}]/);
    assert.match(read.body, /"ratio" ?: ?0\.1234567890123456789[,}]/);
  });

  test('update keeps every digit too', async () => {
    const created = await send('POST', `/api/${measuresPath}`, '{"label":"patched","count":1}');
    const id = (created.json() as Body).data.id as string;
    const patched = await send(
      'PATCH',
      `/api/${measuresPath}/${id}`,
      '{"version":1,"count":-9007199254740995,"ratio":-1.00000000000000000001e-30}',
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.match(patched.body, /"count" ?: ?-9007199254740995[,}]/);
    const row = await stored(id);
    assert.equal(row?.count, '-9007199254740995');
    assert.equal(row?.ratio, '-0.00000000000000000000000000000100000000000000000001');
  });

  test('what an integer field cannot hold exactly is 400 naming the field', async () => {
    for (const [json, reason] of [
      ['{"count":1.00000000000000001}', /integer/],
      ['{"count":9223372036854775808}', /64-bit/],
      ['{"count":-9223372036854775809}', /64-bit/],
      ['{"small":100.0000000000000001}', /integer/],
      ['{"capped":9007199254740993}', /<= 9007199254740992/],
    ] as const) {
      const response = await send('POST', `/api/${measuresPath}`, json);
      assert.equal(response.statusCode, 400, `${json}: ${response.body}`);
      assert.equal((response.json() as Body).code, 'VALIDATION_ERROR');
      const [problem] = problems(response.body);
      assert.equal(problem?.field, Object.keys(JSON.parse(json) as object)[0]);
      assert.match(problem?.reason ?? '', reason);
    }
    const { rows } = await app.database.pool.query(
      `SELECT 1 FROM ${table} WHERE count = 1 OR small = 100 OR capped IS NOT NULL`,
    );
    assert.equal(rows.length, 0, 'nothing was stored');
  });

  test('a number field checks its bounds on the exact value', async () => {
    const over = await send('POST', `/api/${measuresPath}`, '{"share":1.00000000000000000001}');
    assert.equal(over.statusCode, 400, over.body);
    assert.equal(problems(over.body)[0]?.field, 'share');
    const under = await send('POST', `/api/${measuresPath}`, '{"share":-0.00000000000000000001}');
    assert.equal(under.statusCode, 400, under.body);
    const inside = await send('POST', `/api/${measuresPath}`, '{"share":0.99999999999999999999}');
    assert.equal(inside.statusCode, 201, inside.body);
    assert.equal((await stored((inside.json() as Body).data.id as string))?.share, '0.99999999999999999999');
  });

  test('ordinary numbers are stored as before', async () => {
    const created = await send(
      'POST',
      `/api/${measuresPath}`,
      '{"count":9007199254740991,"small":7,"ratio":0.1,"share":0.5,"doc":{"x":1e21,"y":1.5e-10}}',
    );
    assert.equal(created.statusCode, 201, created.body);
    const row = await stored((created.json() as Body).data.id as string);
    assert.equal(row?.count, '9007199254740991');
    assert.equal(row?.small, '7');
    assert.equal(row?.ratio, '0.1');
    assert.equal(row?.share, '0.5');
    assert.equal(row?.doc, '{"x": 1000000000000000000000, "y": 0.00000000015}');
  });

  test('a restore writes back every digit of the state it restores', async () => {
    const created = await send(
      'POST',
      `/api/${measuresPath}`,
      '{"count":9007199254740993,"ratio":0.1234567890123456789}',
    );
    const record = (created.json() as Body).data as unknown as { id: string; updated_at: string };
    const changed = await send(
      'PATCH',
      `/api/${measuresPath}/${record.id}`,
      '{"version":1,"count":1,"ratio":2}',
    );
    assert.equal(changed.statusCode, 200, changed.body);
    const restored = await app.call('POST', `/api/${measuresPath}/${record.id}/restore`, {
      body: { at: record.updated_at, reason: 'precision' },
    });
    assert.equal(restored.statusCode, 201, restored.body);
    assert.match(restored.body, /"count" ?: ?9007199254740993[,}]/);
    const row = await stored(record.id);
    assert.equal(row?.count, '9007199254740993');
    assert.equal(row?.ratio, '0.1234567890123456789');
  });

  test('an answer masked for a caller who may not read a field keeps every digit of the others', async () => {
    const clerk = { actor: 'carol', roles: ['clerk'] };
    const created = await app.call('POST', `/api/${measuresPath}`, {
      body: '{"count":9007199254740993,"secret":"hidden"}',
      headers: { 'content-type': 'application/json' },
      ...clerk,
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = (created.json() as Body).data.id as string;
    const patched = await app.call('PATCH', `/api/${measuresPath}/${id}`, {
      body: '{"version":1,"ratio":0.1234567890123456789,"secret":"still hidden"}',
      headers: { 'content-type': 'application/json' },
      ...clerk,
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.match(patched.body, /"ratio" ?: ?0\.1234567890123456789[,}]/);
    assert.match(patched.body, /"secret" ?: ?null/);
    assert.doesNotMatch(patched.body, /still hidden/);
    const read = await app.call('GET', `/api/${measuresPath}/${id}`, clerk);
    assert.match(read.body, /"count" ?: ?9007199254740993[,}]/);
    assert.doesNotMatch(read.body, /hidden/);
  });

  test('a query value a double cannot hold is 400 naming where it is, not a rounded comparison', async () => {
    const response = await send(
      'POST',
      `/api/${measuresPath}/query`,
      '{"where":{"field":"count","op":"eq","value":9007199254740993}}',
    );
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(problems(response.body)[0]?.field, 'body.where.value');
    assert.match(problems(response.body)[0]?.reason ?? '', /9007199254740992/);
  });

  test('an Idempotency-Key tells apart bodies that differ only in digits a double drops', async () => {
    const headers = { 'idempotency-key': 'exact-digits-1' };
    const first = await send('POST', `/api/${measuresPath}`, '{"ratio":0.1234567890123456789}', headers);
    assert.equal(first.statusCode, 201, first.body);
    const same = await send('POST', `/api/${measuresPath}`, '{"ratio":0.1234567890123456789}', headers);
    assert.equal(same.headers['idempotent-replayed'], 'true');
    const other = await send('POST', `/api/${measuresPath}`, '{"ratio":0.1234567890123456788}', headers);
    assert.equal(other.statusCode, 422, other.body);
  });

  describe('answers built from stored values keep every digit', () => {
    const clerk = { actor: 'carol', roles: ['clerk'] };
    const exactCount = /"count" ?: ?9007199254740993[,}]/;
    const exactRatio = /"ratio" ?: ?0\.1234567890123456789[,}]/;
    const exactDoc = /"n" ?: ?12345678901234567890[,}]/;
    const laterCount = /"count" ?: ?-9007199254740995[,}]/;
    let id: string;
    let createdAt: string;
    let patchedAt: string;
    before(async () => {
      const created = await send(
        'POST',
        `/api/${measuresPath}`,
        '{"label":"trail","count":9007199254740993,"ratio":0.1234567890123456789,' +
          '"doc":{"n":12345678901234567890},"secret":"only admins"}',
      );
      assert.equal(created.statusCode, 201, created.body);
      ({ id, updated_at: createdAt } = (created.json() as Body).data as unknown as {
        id: string;
        updated_at: string;
      });
      const patched = await send(
        'PATCH',
        `/api/${measuresPath}/${id}`,
        '{"version":1,"count":-9007199254740995}',
      );
      assert.equal(patched.statusCode, 200, patched.body);
      patchedAt = ((patched.json() as Body).data as unknown as { updated_at: string }).updated_at;
    });

    test('history events show both values exactly, masked fields still null', async () => {
      const events = await app.call('GET', `/api/${measuresPath}/${id}/history`, clerk);
      assert.equal(events.statusCode, 200, events.body);
      assert.match(events.body, exactCount);
      assert.match(events.body, laterCount);
      assert.match(events.body, exactRatio);
      assert.match(events.body, exactDoc);
      assert.doesNotMatch(events.body, /only admins/);
    });

    test('the state at an instant shows every digit', async () => {
      const first = await app.call(
        'GET',
        `/api/${measuresPath}/${id}/history?at=${encodeURIComponent(createdAt)}`,
        clerk,
      );
      assert.equal(first.statusCode, 200, first.body);
      assert.match(first.body, exactCount);
      assert.match(first.body, exactRatio);
      assert.match(first.body, exactDoc);
      assert.match(first.body, /"secret" ?: ?null/);
      const later = await app.call(
        'GET',
        `/api/${measuresPath}/${id}/history?at=${encodeURIComponent(patchedAt)}`,
      );
      assert.match(later.body, laterCount);
    });

    test('a diff shows both sides exactly and tells apart numbers a double would make equal', async () => {
      const diff = await app.call(
        'GET',
        `/api/${measuresPath}/${id}/diff?from=${encodeURIComponent(createdAt)}&to=${encodeURIComponent(patchedAt)}`,
      );
      assert.equal(diff.statusCode, 200, diff.body);
      assert.match(diff.body, /"from" ?: ?9007199254740993[,}]/);
      assert.match(diff.body, /"to" ?: ?-9007199254740995[,}]/);
      // 9007199254740993 and 9007199254740992 are one double: exact values must still differ.
      const twin = await send('POST', `/api/${measuresPath}`, '{"count":9007199254740993}');
      const twinRecord = (twin.json() as Body).data as unknown as { id: string; updated_at: string };
      const moved = await send(
        'PATCH',
        `/api/${measuresPath}/${twinRecord.id}`,
        '{"version":1,"count":9007199254740992}',
      );
      const movedAt = ((moved.json() as Body).data as unknown as { updated_at: string }).updated_at;
      const twinDiff = await app.call(
        'GET',
        `/api/${measuresPath}/${twinRecord.id}/diff?from=${encodeURIComponent(twinRecord.updated_at)}&to=${encodeURIComponent(movedAt)}`,
      );
      assert.match(
        twinDiff.body,
        /"count" ?: ?\{ ?"from" ?: ?9007199254740993 ?, ?"to" ?: ?9007199254740992 ?\}/,
      );
    });

    test('the replay stream and the audit log show every digit', async () => {
      const replay = await app.call('GET', `/api/${measuresPath}/${id}/replay`);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.match(replay.body, exactCount);
      assert.match(replay.body, laterCount);
      const audit = await app.call('GET', `/api/platform/audit?schema=${measuresPath}&entity_id=${id}`);
      assert.equal(audit.statusCode, 200, audit.body);
      assert.match(audit.body, exactCount);
      assert.match(audit.body, laterCount);
    });

    test('a select projection for a caller with masked fields keeps every digit', async () => {
      const page = await app.call('POST', `/api/${measuresPath}/query`, {
        body: { where: { field: 'label', op: 'eq', value: 'trail' }, select: ['count', 'ratio', 'secret'] },
        ...clerk,
      });
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, laterCount);
      assert.match(page.body, exactRatio);
      assert.match(page.body, /"secret" ?: ?null/);
    });

    test('an archive projection keeps every digit', async () => {
      const cold = await send(
        'POST',
        `/api/${measuresPath}`,
        '{"label":"cold","count":9007199254740993,"ratio":0.1234567890123456789,"secret":"cold secret"}',
      );
      assert.equal(cold.statusCode, 201, cold.body);
      const clock = new MovableClock();
      clock.advance(31 * 86_400_000);
      const job = new ArchiveJob({
        pool: app.database.pool,
        registry: app.service.registry,
        clock,
        logger: captureLogs('fatal').logger,
        batchSize: 100,
      });
      assert.equal(await job.runOnce(), 1);
      const page = await app.call('POST', `/api/${measuresPath}/archive/query`, {
        body: { select: ['count', 'ratio', 'secret'] },
        ...clerk,
      });
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, exactCount);
      assert.match(page.body, exactRatio);
      assert.doesNotMatch(page.body, /cold secret/);
    });
  });
});
