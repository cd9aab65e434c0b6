import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';
import type { Body } from './support/records-app.js';

interface Envelope<T = Record<string, unknown>> {
  data: T;
  status: string;
  requestId: string;
}

describe('records CRUD', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());

  test('POST creates a record with system fields and version 1', async () => {
    const response = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-000001' }),
      headers: { 'x-request-id': 'create-1' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json() as Envelope;
    assert.equal(body.status, 'success');
    assert.equal(body.requestId, 'create-1');
    assert.match(String(body.data.id), /^[0-9a-f-]{36}$/);
    assert.equal(body.data.version, 1);
    assert.equal(body.data.created_by, 'alice');
    assert.equal(body.data.updated_by, 'alice');
    assert.equal(body.data.status, 'draft', 'the default applies');
    assert.equal(body.data.deleted_at, null);
    assert.match(String(body.data.created_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    assert.equal(body.data.amount, 1250.5);
  });

  test('a client-supplied id is kept; reusing it is 409 naming id', async () => {
    const id = randomUUID();
    const first = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ id }) });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((first.json() as Envelope).data.id, id);
    const read = await app.call('GET', `/api/${ordersPath}/${id}`);
    assert.equal(read.statusCode, 200);
    assert.equal((read.json() as Envelope).data.po_number, (first.json() as Envelope).data.po_number);
    const again = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ id }) });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json<Body>().code, 'UNIQUE_CONSTRAINT_VIOLATION');
    assert.equal(again.json<Body>().details.field, 'id');
  });

  test('a duplicate unique field is 409 UNIQUE_CONSTRAINT_VIOLATION naming the field', async () => {
    await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ po_number: 'PO-123123' }) });
    const response = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-123123' }),
    });
    assert.equal(response.statusCode, 409);
    assert.deepEqual(response.json<Body>().details, { field: 'po_number' });
  });

  test('validation errors list each field and reason', async () => {
    const response = await app.call('POST', `/api/${ordersPath}`, {
      body: { po_number: 'nope', amount: 'ten', colour: 'red', created_by: 'mallory', status: 'shipped' },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json() as {
      code: string;
      details: { errors: { field: string; reason: string }[] };
    };
    assert.equal(body.code, 'VALIDATION_ERROR');
    const fields = body.details.errors.map((error) => error.field).sort();
    for (const field of ['amount', 'colour', 'created_by', 'currency', 'po_number', 'status', 'supplier_id'])
      assert.ok(fields.includes(field), `${field} in ${fields.join(',')}`);
    assert.ok(body.details.errors.some((e) => e.field === 'created_by' && /system field/.test(e.reason)));
    assert.ok(body.details.errors.some((e) => e.field === 'colour' && /not a field/.test(e.reason)));
  });

  test('PATCH with the current version updates; a stale version is 409 OPTIMISTIC_LOCK_FAILED', async () => {
    const created = (
      await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() })
    ).json() as Envelope;
    const id = String(created.data.id);
    const patched = await app.call('PATCH', `/api/${ordersPath}/${id}`, {
      body: { version: 1, status: 'submitted', notes: 'rush' },
      actor: 'bob',
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const data = (patched.json() as Envelope).data;
    assert.deepEqual(Object.keys(data).sort(), [
      'id',
      'notes',
      'status',
      'updated_at',
      'updated_by',
      'version',
    ]);
    assert.equal(data.version, 2);
    assert.equal(data.updated_by, 'bob');
    const stale = await app.call('PATCH', `/api/${ordersPath}/${id}`, {
      body: { version: 1, status: 'approved' },
    });
    assert.equal(stale.statusCode, 409);
    assert.equal(stale.json<Body>().code, 'OPTIMISTIC_LOCK_FAILED');
    assert.equal(stale.json<Body>().details.current_version, 2);
    const read = (await app.call('GET', `/api/${ordersPath}/${id}`)).json() as Envelope;
    assert.equal(read.data.status, 'submitted');
    assert.equal(read.data.created_by, 'alice');
  });

  test('two concurrent PATCHes of one version: exactly one wins', async () => {
    const created = (
      await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() })
    ).json() as Envelope;
    const url = `/api/${ordersPath}/${String(created.data.id)}`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        app.call('PATCH', url, { body: { version: 1, notes: `n${index}` } }),
      ),
    );
    const statuses = results.map((result) => result.statusCode).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409, 409, 409]);
  });

  test('PATCH without version, or with nothing to change, is 400; of a missing record 404', async () => {
    const created = (
      await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() })
    ).json() as Envelope;
    const url = `/api/${ordersPath}/${String(created.data.id)}`;
    const noVersion = await app.call('PATCH', url, { body: { notes: 'x' } });
    assert.equal(noVersion.statusCode, 400);
    assert.deepEqual(noVersion.json<Body>().details.errors, [{ field: 'version', reason: 'is required' }]);
    assert.equal((await app.call('PATCH', url, { body: { version: 1 } })).statusCode, 400);
    const required = await app.call('PATCH', url, { body: { version: 1, amount: null } });
    assert.equal(required.statusCode, 400);
    const missing = await app.call('PATCH', `/api/${ordersPath}/${randomUUID()}`, {
      body: { version: 1, notes: 'x' },
    });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json<Body>().code, 'ENTITY_NOT_FOUND');
  });

  test('DELETE soft-deletes: 204, then 404 on read, on a second DELETE and on PATCH; gone from lists', async () => {
    const created = (
      await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ po_number: 'PO-999001' }) })
    ).json() as Envelope;
    const id = String(created.data.id);
    const url = `/api/${ordersPath}/${id}`;
    const deleted = await app.call('DELETE', url);
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assert.equal((await app.call('GET', url)).json<Body>().code, 'ENTITY_NOT_FOUND');
    assert.equal((await app.call('DELETE', url)).statusCode, 404);
    assert.equal((await app.call('PATCH', url, { body: { version: 1, notes: 'x' } })).statusCode, 404);
    const list = await app.call('GET', `/api/${ordersPath}?filter[po_number]=PO-999001`);
    assert.deepEqual((list.json() as Envelope<unknown[]>).data, []);
    const { rows } = await app.database.pool.query(
      `SELECT deleted_at IS NOT NULL AS gone, po_number FROM rec_acme.procurement__purchasing__purchase_orders__v1 WHERE id = $1`,
      [id],
    );
    assert.deepEqual(rows, [{ gone: true, po_number: 'PO-999001' }], 'the data is kept');
    const reuse = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-999001' }),
    });
    assert.equal(reuse.statusCode, 201, 'a unique value is free again once its record is deleted');
  });

  test('unknown schema is 404 SCHEMA_NOT_FOUND with details.schema_path; a non-UUID id is 404', async () => {
    const response = await app.call('GET', '/api/acme/procurement/purchasing/invoices/v1');
    assert.equal(response.statusCode, 404);
    assert.equal(response.json<Body>().code, 'SCHEMA_NOT_FOUND');
    assert.deepEqual(response.json<Body>().details, {
      schema_path: 'acme/procurement/purchasing/invoices/v1',
    });
    const badId = await app.call('GET', `/api/${ordersPath}/not-a-uuid`);
    assert.equal(badId.statusCode, 404);
    assert.equal(badId.json<Body>().code, 'ENTITY_NOT_FOUND');
  });
});
