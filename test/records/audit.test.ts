import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

interface AuditEvent {
  event_id: number;
  schema: string;
  entity_id: string;
  operation: string;
  actor: string;
  previous_hash: string;
  hash: string;
  [field: string]: unknown;
}
type Data<T> = { data: T };

// The third-party verifier of docs/records/audit.md, verbatim.
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value);
function countTampered(events: AuditEvent[]): number {
  let previous = '';
  let tampered = 0;
  for (const { previous_hash, hash, ...event } of events) {
    const expected = createHash('sha256')
      .update(previous + canonical(event))
      .digest('hex');
    if (previous_hash !== previous || hash !== expected) tampered += 1;
    previous = hash;
  }
  return tampered;
}

describe('records audit', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());

  const chainOf = async () => {
    const created = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ notes: 'a"\\é\n' }),
    });
    const id = created.json<Data<{ id: string }>>().data.id;
    let version = 1;
    for (const notes of ['b', 'c', 'd']) {
      const patched = await app.call('PATCH', `/api/${ordersPath}/${id}`, {
        body: { version, notes, lines: [{ sku: 'x', qty: 2 }] },
      });
      version = patched.json<Data<{ version: number }>>().data.version;
    }
    return id;
  };
  const verify = async (id: string) => {
    const response = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: ordersPath, id },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Data<{ valid: boolean; events: number; tampering_detected: number }>>().data;
  };
  // The spec's three fields of the verification result.
  const summary = async (id: string) => {
    const { valid, events, tampering_detected } = await verify(id);
    return { valid, events, tampering_detected };
  };
  const events = async (id: string) => {
    const response = await app.call('GET', `/api/platform/audit?schema=${ordersPath}&entity_id=${id}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Data<AuditEvent[]>>().data.reverse();
  };
  const sql = (text: string, values: unknown[] = []) => app.database.pool.query(text, values);

  test('every change is an audit event; an intact chain verifies, here and with the documented script', async () => {
    const id = await chainOf();
    await app.call('DELETE', `/api/${ordersPath}/${id}`, { actor: 'carol' });
    assert.deepEqual(await summary(id), { valid: true, events: 5, tampering_detected: 0 });
    const chain = await events(id);
    assert.deepEqual(
      chain.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'UPDATE', 'UPDATE', 'DELETE'],
    );
    assert.equal(chain[4]?.actor, 'carol');
    assert.equal(chain[0]?.previous_hash, '');
    assert.equal(countTampered(chain), 0, 'a third party recomputes every hash');
  });

  test('an edited event is detected', async () => {
    const id = await chainOf();
    await sql(
      `UPDATE records.audit_events SET new_value = jsonb_set(new_value, '{notes}', '"forged"') WHERE entity_id = $1 AND event_id = (SELECT min(event_id) + 1 FROM records.audit_events WHERE entity_id = $1)`,
      [id],
    );
    assert.deepEqual(await summary(id), { valid: false, events: 4, tampering_detected: 1 });
    assert.equal(countTampered(await events(id)), 1);
  });

  test('a deleted event is detected', async () => {
    const id = await chainOf();
    await sql(
      `DELETE FROM records.audit_events WHERE entity_id = $1 AND event_id = (SELECT min(event_id) + 1 FROM records.audit_events WHERE entity_id = $1)`,
      [id],
    );
    const result = await verify(id);
    assert.equal(result.valid, false);
    assert.equal(result.events, 3);
    // The next event's link is broken, and the removed event's history row is covered by nothing.
    assert.equal(result.tampering_detected, 2);
  });

  test('reordered events are detected', async () => {
    const id = await chainOf();
    const { rows } = await sql(
      `SELECT event_id FROM records.audit_events WHERE entity_id = $1 ORDER BY event_id`,
      [id],
    );
    const [first, second] = rows.map((row: { event_id: string }) => row.event_id).slice(1, 3);
    await sql(
      `UPDATE records.audit_events SET event_id = CASE event_id WHEN $1::bigint THEN -1 ELSE event_id END WHERE event_id = $1`,
      [first],
    );
    await sql(`UPDATE records.audit_events SET event_id = $1 WHERE event_id = $2`, [first, second]);
    await sql(`UPDATE records.audit_events SET event_id = $1 WHERE event_id = -1`, [second]);
    const result = await verify(id);
    assert.equal(result.valid, false);
    assert.ok(result.tampering_detected >= 2, JSON.stringify(result));
  });

  test('the audit log filters by schema, entity, actor, operation and time, newest first, with a cursor', async () => {
    const id = await chainOf();
    await app.call('DELETE', `/api/${ordersPath}/${id}`, { actor: 'dave' });
    const byActor = await app.call(
      'GET',
      `/api/platform/audit?schema=${ordersPath}&actor=dave&operation=DELETE`,
    );
    assert.equal(byActor.statusCode, 200, byActor.body);
    const found = byActor.json<Data<AuditEvent[]>>().data;
    assert.equal(found.length, 1);
    assert.equal(found[0]?.entity_id, id);
    const first = await app.call('GET', `/api/platform/audit?schema=${ordersPath}&entity_id=${id}&limit=3`);
    const page = first.json<Data<AuditEvent[]> & { pagination: { cursor: string; has_more: boolean } }>();
    assert.equal(page.data.length, 3);
    assert.equal(page.pagination.has_more, true);
    assert.ok(page.data[0]!.event_id > page.data[1]!.event_id, 'newest first');
    const second = await app.call(
      'GET',
      `/api/platform/audit?schema=${ordersPath}&entity_id=${id}&limit=3&cursor=${page.pagination.cursor}`,
    );
    assert.equal(second.json<Data<AuditEvent[]>>().data.length, 2);
    const future = await app.call(
      'GET',
      `/api/platform/audit?schema=${ordersPath}&from=2999-01-01T00:00:00Z`,
    );
    assert.deepEqual(future.json<Data<unknown[]>>().data, []);
    const everything = await app.call('GET', '/api/platform/audit', { roles: ['buyer'] });
    assert.equal(everything.statusCode, 403, 'reading every schema needs the auditor role');
    const auditor = await app.call('GET', '/api/platform/audit?limit=1', { roles: ['auditor'] });
    assert.equal(auditor.statusCode, 200);
    const noRead = await app.call('GET', `/api/platform/audit?schema=${ordersPath}`, { roles: ['nobody'] });
    assert.equal(noRead.statusCode, 403);
    for (const query of ['operation=DROP', 'entity_id=1', 'cursor=abc', 'from=now', 'bogus=1'])
      assert.equal(
        (await app.call('GET', `/api/platform/audit?schema=${ordersPath}&${query}`)).statusCode,
        400,
        query,
      );
    const badVerify = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: ordersPath, id: 'x' },
    });
    assert.equal(badVerify.statusCode, 400);
  });

  test('the application role may read audit rows but not append, update or delete them', async () => {
    const role = `weft_t_app_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    const admin = new pg.Client({ connectionString: process.env.WEFT_TEST_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' IN ROLE weft_records_app`);
      const url = new URL(app.database.url);
      url.username = role;
      url.password = password;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const id = await chainOf();
        const read = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM records.audit_events WHERE entity_id = $1',
          [id],
        );
        assert.equal(read.rows[0]?.n, 4);
        // Only the change triggers append (as the owner): a forged event is refused.
        await assert.rejects(
          client.query(
            `INSERT INTO records.audit_events ("timestamp", actor, schema_path, entity_id, operation, version, previous_hash, hash)
             VALUES (now(), 'x', 'a/b/c/d/v1', gen_random_uuid(), 'UPDATE', 1, '', '')`,
          ),
          { code: '42501' },
        );
        await assert.rejects(client.query(`UPDATE records.audit_events SET actor = 'mallory'`), {
          code: '42501',
        });
        await assert.rejects(client.query('DELETE FROM records.audit_events'), { code: '42501' });
        await assert.rejects(client.query('TRUNCATE records.audit_events'), { code: '42501' });
      } finally {
        await client.end();
      }
    } finally {
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    }
  });
});
