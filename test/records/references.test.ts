import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import {
  ordersPath,
  purchaseOrder,
  seededSupplierId,
  startRecordsApp,
  suppliersPath,
  type Body,
  type RecordsTestApp,
} from './support/records-app.js';

const boxesPath = 'acme/refs/vault/boxes/v1';
const tagsPath = 'acme/refs/vault/tags/v1';
// Clerks see only the boxes they own (row-level security); tags refer to boxes and are archived
// when closed.
const vaultYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: boxes-v1 }
spec:
  org: acme
  app: refs
  domain: vault
  object: boxes
  version: v1
  fields:
    - { name: label, type: string, required: true }
    - { name: owner, type: string, required: true, filterable: true }
  access:
    roles: { create: [admin, clerk], read: [admin, clerk], update: [admin, clerk], delete: [admin, clerk] }
    rowFilter:
      - role: clerk
        condition: "owner = current_setting('weft.actor_id')"
        message: Clerks see their own boxes
---
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: tags-v1 }
spec:
  org: acme
  app: refs
  domain: vault
  object: tags
  version: v1
  timeMachine: true
  fields:
    - { name: label, type: string, required: true }
    - { name: status, type: enum, enum: [open, closed], required: true }
    - { name: box_id, type: uuid, references: ${boxesPath} }
  access:
    roles: { create: [admin, clerk], read: [admin, clerk], update: [admin, clerk], delete: [admin, clerk] }
    # A row filter makes a clerk's tag requests run under row-level security as the clerk.
    rowFilter:
      - role: clerk
        condition: "label IS NOT NULL"
        message: Clerks see labelled tags
  archive:
    afterDays: 30
    condition: { field: status, op: eq, value: closed }
`;
const day = 86_400_000;
type Data = { data: Record<string, unknown> & { id: string; version: number; updated_at: string } };

describe('records: reference fields must name an existing record', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'vault.yaml': vaultYaml } });
  });
  after(() => app.close());

  const orders = `/api/${ordersPath}`;
  const assertUnknownReference = (response: { statusCode: number; body: string }, field: string) => {
    assert.equal(response.statusCode, 400, response.body);
    const body = JSON.parse(response.body) as Body;
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      body.details.errors.map((error) => error.field),
      [field],
    );
    assert.match(body.details.errors[0]?.reason ?? '', /does not exist/);
  };
  const createSupplier = async () => {
    const response = await app.call('POST', `/api/${suppliersPath}`, {
      body: { name: 'Acme GmbH', country: 'DE' },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data>().data;
  };
  const createOrder = async (supplierId: string) => {
    const response = await app.call('POST', orders, { body: purchaseOrder({ supplier_id: supplierId }) });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data>().data;
  };

  test('create: an unknown id is a 400 naming the field; an existing one is accepted', async () => {
    assertUnknownReference(
      await app.call('POST', orders, { body: purchaseOrder({ supplier_id: randomUUID() }) }),
      'supplier_id',
    );
    const order = await createOrder(seededSupplierId);
    assert.equal(order.supplier_id, seededSupplierId);
  });

  test('create: a soft-deleted target does not satisfy a new reference', async () => {
    const supplier = await createSupplier();
    assert.equal((await app.call('DELETE', `/api/${suppliersPath}/${supplier.id}`)).statusCode, 204);
    assertUnknownReference(
      await app.call('POST', orders, { body: purchaseOrder({ supplier_id: supplier.id }) }),
      'supplier_id',
    );
  });

  test('PATCH: an unknown id is a 400; an existing one is accepted; an unchanged reference is not re-checked', async () => {
    const supplier = await createSupplier();
    const order = await createOrder(seededSupplierId);
    const patch = (version: number, body: Record<string, unknown>) =>
      app.call('PATCH', `${orders}/${order.id}`, { body: { version, ...body } });
    assertUnknownReference(await patch(1, { supplier_id: randomUUID() }), 'supplier_id');
    const moved = await patch(1, { supplier_id: supplier.id });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json<Data>().data.supplier_id, supplier.id);
    // The target goes away; the order keeps its reference and other fields still change.
    assert.equal((await app.call('DELETE', `/api/${suppliersPath}/${supplier.id}`)).statusCode, 204);
    const other = await patch(2, { notes: 'still editable' });
    assert.equal(other.statusCode, 200, other.body);
  });

  test('restore: bringing back a reference whose target is gone is a 400 naming the field', async () => {
    const first = await createSupplier();
    const order = await createOrder(first.id);
    const moved = await app.call('PATCH', `${orders}/${order.id}`, {
      body: { version: 1, supplier_id: seededSupplierId },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal((await app.call('DELETE', `/api/${suppliersPath}/${first.id}`)).statusCode, 204);
    const restore = (at: string) =>
      app.call('POST', `${orders}/${order.id}/restore`, { body: { at, reason: 'undo the supplier change' } });
    assertUnknownReference(await restore(order.updated_at), 'supplier_id');
    const current = moved.json<Data>().data;
    assert.equal(
      (await restore(current.updated_at)).statusCode,
      201,
      'a restore that keeps the reference is fine',
    );
  });

  test('the database refuses an unknown id whoever writes: no write path can bypass it', async () => {
    const error = await app.database.pool
      .query(
        `INSERT INTO rec_acme.procurement__purchasing__purchase_orders__v1
           (created_by, updated_by, po_number, supplier_id, currency, amount)
         VALUES ('t', 't', 'PO-424242', $1, 'EUR', 1)`,
        [randomUUID()],
      )
      .then(
        () => undefined,
        (caught: { code?: string; column?: string }) => caught,
      );
    assert.equal(error?.code, 'WRF01');
    assert.equal(error?.column, 'supplier_id');
  });

  test('an optional reference may be null', async () => {
    const response = await app.call('POST', `/api/${tagsPath}`, {
      body: { label: 'loose', status: 'open', box_id: null },
    });
    assert.equal(response.statusCode, 201, response.body);
    const omitted = await app.call('POST', `/api/${tagsPath}`, { body: { label: 'loose', status: 'open' } });
    assert.equal(omitted.statusCode, 201, omitted.body);
  });

  test('under row-level security: a target the caller cannot see still counts as existing', async () => {
    const box = await app.call('POST', `/api/${boxesPath}`, {
      body: { label: 'ann-1', owner: 'ann' },
      actor: 'ann',
      roles: ['clerk'],
    });
    assert.equal(box.statusCode, 201, box.body);
    const boxId = box.json<Data>().data.id;
    const hidden = await app.call('GET', `/api/${boxesPath}/${boxId}`, { actor: 'ben', roles: ['clerk'] });
    assert.equal(hidden.statusCode, 404, 'ben cannot see ann’s box');
    const tag = await app.call('POST', `/api/${tagsPath}`, {
      body: { label: 'ben-tag', status: 'open', box_id: boxId },
      actor: 'ben',
      roles: ['clerk'],
    });
    assert.equal(tag.statusCode, 201, tag.body);
    assertUnknownReference(
      await app.call('POST', `/api/${tagsPath}`, {
        body: { label: 'ben-tag', status: 'open', box_id: randomUUID() },
        actor: 'ben',
        roles: ['clerk'],
      }),
      'box_id',
    );
  });

  test('unarchive: a record whose target was deleted meanwhile is refused with a 400 naming the field', async () => {
    const box = await app.call('POST', `/api/${boxesPath}`, { body: { label: 'b', owner: 'admin' } });
    assert.equal(box.statusCode, 201, box.body);
    const boxId = box.json<Data>().data.id;
    const kept = await app.call('POST', `/api/${boxesPath}`, { body: { label: 'k', owner: 'admin' } });
    const keptId = kept.json<Data>().data.id;
    const tag = async (id: string) => {
      const response = await app.call('POST', `/api/${tagsPath}`, {
        body: { label: 'archived', status: 'closed', box_id: id },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<Data>().data.id;
    };
    const orphan = await tag(boxId);
    const fine = await tag(keptId);
    const clock = new MovableClock();
    clock.advance(31 * day);
    const job = new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      batchSize: 100,
    });
    await job.runOnce();
    assert.equal((await app.call('GET', `/api/${tagsPath}/${orphan}`)).statusCode, 404, 'archived');
    assert.equal((await app.call('DELETE', `/api/${boxesPath}/${boxId}`)).statusCode, 204);
    const unarchive = (id: string) =>
      app.call('POST', `/api/${tagsPath}/${id}/unarchive`, { body: { reason: 'needed again' } });
    assertUnknownReference(await unarchive(orphan), 'box_id');
    const back = await unarchive(fine);
    assert.equal(back.statusCode, 200, back.body);
  });
});
