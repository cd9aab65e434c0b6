import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { systemClock } from '../../../src/platform/clock.js';
import { AccessControl } from '../../../src/records/access/access-control.js';
import { RecordReader } from '../../../src/records/access/record-reader.js';
import { withAccessSession } from '../../../src/records/access/access-session.js';
import { maskRecord } from '../../../src/records/access/field-access.js';
import { dealsPath, dealsTable, startDealsApp, type DealsApp } from './support/deals.js';

interface Page {
  data: { title: string; margin: number | null }[];
  pagination: { total?: number };
}

describe('records access: row-level security is a layer of its own', () => {
  let deals: DealsApp;
  const access = new AccessControl({ clock: systemClock, applyRowFilters: false });
  before(async () => {
    deals = await startDealsApp(access);
    for (const body of [
      { title: 'N1', region: 'north', owner: 'tom', amount: 1, margin: 0.2 },
      { title: 'N2', region: 'north', owner: 'rita', amount: 2 },
      { title: 'S1', region: 'south', owner: 'sam', amount: 3 },
    ])
      assert.equal((await deals.as('admin', 'POST', dealsPath, body)).statusCode, 201);
  });
  after(() => deals?.close());

  test('with layer 4 switched off in the application, RLS alone still hides the rows', async () => {
    const schema = deals.app.service.registry.resolve(dealsPath);
    const identity = { actor_id: 'sam', roles: ['rep'], attributes: { region: 'south' } };
    assert.equal(access.view(identity, schema).rowFilter, undefined, 'the application adds no row filter');
    const south = await deals.as('sam', 'GET', `${dealsPath}?offset=0`);
    assert.equal(south.statusCode, 200);
    const page = south.json<Page>();
    assert.deepEqual(
      page.data.map((row) => row.title),
      ['S1'],
    );
    assert.equal(page.pagination.total, 1, 'the total is counted under RLS too');
    const north = await deals.as('rita', 'GET', `${dealsPath}?sort=amount`);
    assert.deepEqual(
      north.json<Page>().data.map((row) => row.title),
      ['N1', 'N2'],
    );
    const trainee = await deals.as('tom', 'GET', dealsPath);
    assert.deepEqual(
      trainee.json<Page>().data.map((row) => row.title),
      ['N1'],
    );
    const admin = await deals.as('admin', 'GET', dealsPath);
    assert.equal(admin.json<Page>().data.length, 3);
  });

  test('the API role is no superuser, owns nothing, cannot bypass RLS; tables have RLS on', async () => {
    const { rows } = await deals.app.database.pool.query<{
      rolsuper: boolean;
      rolbypassrls: boolean;
      owner: string;
      relrowsecurity: boolean;
      policies: string[];
    }>(
      `SELECT r.rolsuper, r.rolbypassrls, pg_get_userbyid(c.relowner) AS owner, c.relrowsecurity,
              (SELECT array_agg(policyname::text ORDER BY policyname) FROM pg_policies WHERE schemaname = n.nspname AND tablename = c.relname) AS policies
       FROM pg_roles r, pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE r.rolname = 'weft_records_api' AND n.nspname = 'rec_acme' AND c.relname = 'sales__crm__deals__v1'`,
    );
    assert.deepEqual(rows[0], {
      rolsuper: false,
      rolbypassrls: false,
      owner: 'postgres',
      relrowsecurity: true,
      policies: ['weft_delete', 'weft_insert', 'weft_select', 'weft_update'],
    });
  });

  test('SQL run as the API role sees only what the policies allow, and nothing without settings', async () => {
    const pool = deals.app.database.pool;
    const count = (identity: { actor_id: string; roles: string[]; attributes: Record<string, unknown> }) =>
      withAccessSession(pool, identity, async (client) => {
        const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${dealsTable}`);
        return rows[0]?.n;
      });
    assert.equal(await count({ actor_id: 'sam', roles: ['rep'], attributes: { region: 'south' } }), 1);
    assert.equal(await count({ actor_id: 'x', roles: ['rep'], attributes: {} }), 0, 'a rep without a region');
    assert.equal(await count({ actor_id: 'x', roles: [], attributes: {} }), 0, 'no role');
    assert.equal(await count({ actor_id: 'x', roles: ['viewer'], attributes: {} }), 0, 'a role without read');
    assert.equal(await count({ actor_id: 'a', roles: ['admin'], attributes: {} }), 3);
    const client = await pool.connect();
    try {
      await client.query(`BEGIN; SET LOCAL ROLE weft_records_api`);
      // Without a caller the policies match nothing, or fail on the missing settings: closed either way.
      const seen = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${dealsTable}`).then(
        (result) => result.rows[0]?.n,
        () => 0,
      );
      assert.equal(seen, 0, 'the role alone, without a caller, sees nothing');
      await client.query('ROLLBACK');
      await client.query(`BEGIN; SET LOCAL ROLE weft_records_api`);
      await assert.rejects(client.query(`SELECT * FROM records.api_keys`), /permission denied/);
      await client.query('ROLLBACK');
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  });

  test('maskRecord nulls the fields an identity may not read, for history, audit and search callers', () => {
    const schema = deals.app.service.registry.resolve(dealsPath);
    const record = { id: 'x', title: 'N1', margin: 0.2, discount: 0.1 };
    assert.deepEqual(maskRecord({ actor_id: 'r', roles: ['rep'], attributes: {} }, schema, record), {
      ...record,
      margin: null,
    });
    assert.deepEqual(
      maskRecord({ actor_id: 'm', roles: ['manager'], attributes: {} }, schema, record),
      record,
    );
    assert.deepEqual(maskRecord({ actor_id: 'r', roles: ['rep'], attributes: {} }, schema, { title: 'x' }), {
      title: 'x',
    });
  });

  test('CEL rules read actor.scope and now; row filters read weft.scope', async () => {
    const clock = { now: () => new Date('2030-01-01T00:00:00Z') };
    const scoped = new AccessControl({ clock });
    await writeFile(
      path.join(deals.app.resourcesDir, 'scoped.yaml'),
      `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: stores-v1 }
spec:
  org: acme
  app: retail
  domain: shops
  object: stores
  version: v1
  fields:
    - { name: code, type: string, required: true }
  access:
    abac:
      - operation: read
        condition: 'actor.scope.region == "eu" && now < timestamp("2031-01-01T00:00:00Z")'
        message: Only the EU scope, until 2031
    rowFilter:
      - role: clerk
        condition: "code = ANY(ARRAY(SELECT jsonb_array_elements_text(current_setting('weft.scope')::jsonb->'stores')))"
`,
    );
    const report = await deals.app.service.sync.syncFolder();
    assert.deepEqual(report?.rejected, []);
    const schema = deals.app.service.registry.resolve('acme/retail/shops/stores/v1');
    const pool = deals.app.database.pool;
    await pool.query(
      `INSERT INTO rec_acme.retail__shops__stores__v1 (created_by, updated_by, code) VALUES ('s','s','A'), ('s','s','B'), ('s','s','C')`,
    );
    const plan = { where: [], sort: [], limit: 10 };
    const cursors = { encode: () => '', decode: () => [] } as never;
    const clerk = {
      actor_id: 'c',
      roles: ['clerk'],
      attributes: {},
      scope: { region: 'eu', stores: ['A', 'C'] },
    };
    const { page } = await new RecordReader(pool, scoped).readPage(clerk, schema, plan, cursors);
    assert.deepEqual(page.rows.map((row) => (JSON.parse(row) as { code: string }).code).sort(), ['A', 'C']);
    await assert.rejects(
      new RecordReader(pool, scoped).readPage(
        { ...clerk, scope: { region: 'us', stores: ['A'] } },
        schema,
        plan,
        cursors,
      ),
      { code: 'ABAC_DENIED', message: 'Only the EU scope, until 2031' },
    );
    const later = new AccessControl({ clock: { now: () => new Date('2032-01-01T00:00:00Z') } });
    await assert.rejects(new RecordReader(pool, later).readPage(clerk, schema, plan, cursors), {
      code: 'ABAC_DENIED',
    });
  });
});
