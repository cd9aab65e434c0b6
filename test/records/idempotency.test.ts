import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';
import type { Body } from './support/records-app.js';

describe('records idempotency keys', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());
  const count = async (poNumber: string) =>
    Number(
      (
        await app.database.pool.query<{ count: string }>(
          `SELECT count(*) FROM rec_acme.procurement__purchasing__purchase_orders__v1 WHERE po_number = $1`,
          [poNumber],
        )
      ).rows[0]?.count,
    );

  test('same key and body replays the stored status and body; the write happens once', async () => {
    const body = purchaseOrder({ po_number: 'PO-100001' });
    const headers = { 'idempotency-key': 'create-100001' };
    const first = await app.call('POST', `/api/${ordersPath}`, { body, headers });
    assert.equal(first.statusCode, 201);
    const second = await app.call('POST', `/api/${ordersPath}`, { body: { ...body }, headers });
    assert.equal(second.statusCode, 201);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await count('PO-100001'), 1);
  });

  test('same key with a different body is 422 IDEMPOTENCY_CONFLICT', async () => {
    const headers = { 'idempotency-key': 'create-100002' };
    await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100002' }),
      headers,
    });
    const other = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100003' }),
      headers,
    });
    assert.equal(other.statusCode, 422);
    assert.equal(other.json<Body>().code, 'IDEMPOTENCY_CONFLICT');
    assert.equal(await count('PO-100003'), 0);
  });

  test('keys are per actor: another actor with the same key runs its own request', async () => {
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100004' }),
      headers,
    });
    const theirs = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100005' }),
      headers,
      actor: 'bob',
    });
    assert.equal(mine.statusCode, 201);
    assert.equal(theirs.statusCode, 201);
    assert.equal(await count('PO-100005'), 1);
  });

  test('concurrent requests with one key execute once; the others replay', async () => {
    const body = purchaseOrder({ po_number: 'PO-100006' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        app.call('POST', `/api/${ordersPath}`, { body, headers: { 'idempotency-key': 'race-100006' } }),
      ),
    );
    assert.deepEqual(
      results.map((result) => result.statusCode),
      [201, 201, 201, 201, 201, 201],
    );
    assert.equal(new Set(results.map((result) => result.body)).size, 1);
    assert.equal(await count('PO-100006'), 1);
  });

  test('PATCH and DELETE replay too; a failed request stores nothing', async () => {
    const created = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() });
    const url = `/api/${ordersPath}/${String(created.json<Body>().data.id)}`;
    const headers = { 'idempotency-key': 'patch-1' };
    const patched = await app.call('PATCH', url, { body: { version: 1, notes: 'a' }, headers });
    const replayed = await app.call('PATCH', url, { body: { version: 1, notes: 'a' }, headers });
    assert.equal(patched.statusCode, 200);
    assert.equal(replayed.statusCode, 200);
    assert.equal(replayed.body, patched.body);
    const stale = await app.call('PATCH', url, {
      body: { version: 1, notes: 'b' },
      headers: { 'idempotency-key': 'p2' },
    });
    assert.equal(stale.statusCode, 409);
    const retried = await app.call('PATCH', url, {
      body: { version: 1, notes: 'b' },
      headers: { 'idempotency-key': 'p2' },
    });
    assert.equal(retried.statusCode, 409, 'a failure is not stored; the retry runs again');
    const deleted = await app.call('DELETE', url, { headers: { 'idempotency-key': 'del-1' } });
    const again = await app.call('DELETE', url, { headers: { 'idempotency-key': 'del-1' } });
    assert.equal(deleted.statusCode, 204);
    assert.equal(again.statusCode, 204);
    const { rows } = await app.database.pool.query<{ kept: number }>(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS kept FROM records.idempotency_keys WHERE key = 'del-1'`,
    );
    assert.equal(rows[0]?.kept, 24 * 3600, 'kept 24 hours');
  });

  test('an expired key is taken over by a new request', async () => {
    const headers = { 'idempotency-key': 'old-key' };
    await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100007' }),
      headers,
    });
    await app.database.pool.query(
      `UPDATE records.idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'old-key'`,
    );
    const fresh = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-100008' }),
      headers,
    });
    assert.equal(fresh.statusCode, 201);
    assert.equal(await count('PO-100008'), 1);
  });

  test('a malformed key is 400', async () => {
    const response = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder(),
      headers: { 'idempotency-key': 'x'.repeat(300) },
    });
    assert.equal(response.statusCode, 400);
  });
});
