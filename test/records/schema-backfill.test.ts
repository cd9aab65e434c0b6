import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ensureSchemaDdl } from '../../src/records/ddl/ensure-schema-ddl.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { ordersPath, purchaseOrder, startRecordsApp, suppliersPath } from './support/records-app.js';

const orders = 'rec_acme.procurement__purchasing__purchase_orders__v1';
const suppliers = 'rec_acme.procurement__sourcing__suppliers__v1';

describe('schema back-fill of change triggers and search columns', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createMigratedDatabase('records');
  });
  after(() => database.drop());

  test('a start brings tables made before the triggers, history and search columns up to date', async () => {
    const first = await startRecordsApp({}, { database });
    await first.close();
    const { pool } = database;
    // What a table created by older code looks like: no trigger, an outdated function, no history
    // table, no search columns.
    const fn = (
      await pool.query<{ fn: string }>(
        `SELECT tgfoid::regproc::text AS fn FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = 'record_changes'`,
        [orders],
      )
    ).rows[0]!.fn;
    await pool.query(`DROP TRIGGER record_changes ON ${orders}`);
    await pool.query(`DROP TABLE hist_acme.procurement__purchasing__purchase_orders__v1`);
    await pool.query(
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
    );
    await pool.query(`ALTER TABLE ${suppliers} DROP COLUMN _search_vector`);

    const second = await startRecordsApp({}, { database });
    try {
      const created = await second.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<{ data: { id: string } }>().data.id;
      const history = await second.call('GET', `/api/${ordersPath}/${id}/history`);
      assert.equal(history.statusCode, 200, history.body);
      assert.equal(history.json<{ data: { operation: string }[] }>().data[0]?.operation, 'CREATE');
      const audit = await second.call('GET', `/api/platform/audit?schema=${ordersPath}&entity_id=${id}`);
      assert.equal(audit.json<{ data: unknown[] }>().data.length, 1);
      const columns = await pool.query(
        `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = '_search_vector' AND NOT attisdropped`,
        [suppliers],
      );
      assert.equal(columns.rowCount, 1);
      const search = await second.call('GET', `/api/${suppliersPath}`);
      assert.equal(search.statusCode, 200);
      assert.deepEqual(await ensureSchemaDdl(pool), [], 'a second pass finds nothing to do (idempotent)');
    } finally {
      await second.close();
    }
  });

  test('a start gives a table with reference fields its reference check when it lacks it', async () => {
    const first = await startRecordsApp({}, { database });
    await first.close();
    await database.pool.query(`DROP TRIGGER record_references ON ${orders}`);
    const second = await startRecordsApp({}, { database });
    try {
      const unknown = await second.call('POST', `/api/${ordersPath}`, {
        body: purchaseOrder({ supplier_id: randomUUID() }),
      });
      assert.equal(unknown.statusCode, 400, unknown.body);
      assert.equal(unknown.json<{ code: string }>().code, 'VALIDATION_ERROR');
      assert.deepEqual(await ensureSchemaDdl(database.pool), [], 'a second pass finds nothing to do');
    } finally {
      await second.close();
    }
  });
});
