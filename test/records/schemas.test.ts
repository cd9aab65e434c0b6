import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyResources } from '../../src/records/schemas/apply-resources.js';
import { parseResourceText } from '../../src/records/schemas/resource-documents.js';
import {
  ordersPath,
  seededSupplierId,
  startRecordsApp,
  suppliersPath,
  type RecordsTestApp,
} from './support/records-app.js';
import type { Body } from './support/records-app.js';

const widgets = (fields: string, version = 'v1') => `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: {name: widgets}
spec:
  org: demo
  app: shop
  domain: catalogue
  object: widgets
  version: ${version}
  fields:
${fields}
`;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('records schemas: load, validate, change, watch', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
  });
  after(() => app.close());

  test('the examples are served, listed, ready and described in OpenAPI with their real types', async () => {
    assert.equal((await app.service.app.inject({ url: '/api/readyz' })).statusCode, 200);
    const listing = await app.call('GET', '/api');
    assert.equal(listing.statusCode, 200);
    const entries = listing.json<{ data: unknown }>().data as {
      path: string;
      fields: number;
      hasTimeMachine: boolean;
      searchTier: number;
    }[];
    assert.deepEqual(
      entries.map((entry) => entry.path),
      [ordersPath, suppliersPath],
    );
    assert.deepEqual(
      {
        fields: entries[0]!.fields,
        hasTimeMachine: entries[0]!.hasTimeMachine,
        searchTier: entries[0]!.searchTier,
      },
      { fields: 9, hasTimeMachine: true, searchTier: 1 },
    );
    const openapi = (await app.call('GET', '/api/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
      components: {
        schemas: Record<
          string,
          { properties: Record<string, { type?: string; format?: string; enum?: string[] }> }
        >;
      };
    };
    assert.ok(openapi.paths[`/api/${ordersPath}`]?.post);
    assert.ok(openapi.paths[`/api/${ordersPath}/{id}`]?.patch);
    assert.ok(openapi.paths[`/api/${ordersPath}/query`]?.post);
    const record = openapi.components.schemas.AcmeProcurementPurchasingPurchaseOrdersV1Record!;
    assert.equal(record.properties.amount?.type, 'number');
    assert.equal(record.properties.expected_at?.format, 'date-time');
    assert.deepEqual(record.properties.currency?.enum, ['EUR', 'USD', 'GBP', 'CHF']);
  });

  test('the table has typed columns, NOT NULL, defaults, CHECKs and indexes in its own Postgres schema', async () => {
    const { rows: columns } = await app.database.pool.query<{
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
    }>(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'rec_acme' AND table_name = 'procurement__purchasing__purchase_orders__v1'`,
    );
    const byName = new Map(columns.map((column) => [column.column_name, column]));
    assert.equal(byName.get('amount')?.data_type, 'numeric');
    assert.equal(byName.get('amount')?.is_nullable, 'NO');
    assert.equal(byName.get('expected_at')?.data_type, 'timestamp with time zone');
    assert.equal(byName.get('lines')?.data_type, 'jsonb');
    assert.match(String(byName.get('status')?.column_default), /draft/);
    const check = async (sql: string) =>
      app.database.pool.query(sql).then(
        () => 'ok',
        (error: { code: string }) => error.code,
      );
    const base = `INSERT INTO rec_acme.procurement__purchasing__purchase_orders__v1 (created_by, updated_by, po_number, supplier_id, currency, amount`;
    assert.equal(
      await check(`${base}) VALUES ('t','t','PO-777777','${seededSupplierId}','EUR',-1)`),
      '23514',
      'min',
    );
    assert.equal(
      await check(`${base}) VALUES ('t','t','PO-77','${seededSupplierId}','EUR',1)`),
      '23514',
      'pattern',
    );
    assert.equal(
      await check(`${base}) VALUES ('t','t','PO-777778','${seededSupplierId}','YEN',1)`),
      '23514',
      'enum',
    );
    const { rows: indexes } = await app.database.pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'rec_acme' AND tablename = 'procurement__sourcing__suppliers__v1'`,
    );
    const definitions = indexes.map((index) => String(index.indexdef)).join('\n');
    assert.match(definitions, /UNIQUE INDEX .* \(vat_number\) WHERE \(deleted_at IS NULL\)/);
    assert.match(definitions, /USING gin \(tags\)/);
    assert.match(definitions, /\(country, id\)/);
  });

  test('a bad document is rejected with file, path and reason and the others keep serving', async () => {
    const parsed = parseResourceText(
      widgets(
        `    - {name: Bad-Name, type: string}\n    - {name: price, type: money}\n    - {name: size, type: integer, min: 5, max: 1}`,
      ),
      'widgets.yaml',
    );
    const report = await applyResources(app.database.pool, parsed.documents);
    assert.deepEqual(
      report.rejected.map((rejected) => [rejected.source, rejected.path]),
      [
        ['widgets.yaml', 'spec.fields[0].name'],
        ['widgets.yaml', 'spec.fields[1].type'],
        ['widgets.yaml', 'spec.fields[2].min'],
      ],
    );
    assert.ok(report.rejected.every((rejected) => rejected.reason.length > 0));
    const broken = parseResourceText('apiVersion: weft.dev/v1\nkind: [oops', 'broken.yaml');
    assert.equal(broken.rejected[0]?.source, 'broken.yaml');
    assert.equal(
      parseResourceText('apiVersion: other/v1\nkind: SchemaDefinition', 'x.yaml').rejected[0]?.path,
      'apiVersion',
    );
    await writeFile(
      path.join(app.resourcesDir, 'zz-broken.yaml'),
      'apiVersion: weft.dev/v1\nkind: SchemaDefinition\nspec: {org: 1}\n',
    );
    const folder = await app.service.sync.syncFolder();
    assert.ok(
      folder?.rejected.some(
        (rejected) => rejected.source === 'zz-broken.yaml' && rejected.path === 'spec.org',
      ),
    );
    assert.equal((await app.call('GET', `/api/${ordersPath}`)).statusCode, 200);
  });

  test('additive changes apply online; destructive ones are refused with a message to publish v2', async () => {
    const file = path.join(app.resourcesDir, 'widgets.yaml');
    await writeFile(file, widgets('    - {name: title, type: string, required: true}'));
    await app.service.sync.syncFolder();
    const url = '/api/demo/shop/catalogue/widgets/v1';
    assert.equal((await app.call('POST', url, { body: { title: 'a' } })).statusCode, 201);
    await writeFile(
      file,
      widgets(
        '    - {name: title, type: string, required: true, filterable: true}\n    - {name: colour, type: string, default: red}',
      ),
    );
    // The folder watcher may apply the change before this explicit sync does; either way the new
    // field's default and the new index must serve at once.
    await app.service.sync.syncFolder();
    const created = await app.call('POST', url, { body: { title: 'b' } });
    assert.equal(created.json<Body>().data.colour, 'red');
    assert.equal((await app.call('GET', `${url}?filter[title]=a`)).json<Body>().data.length, 1);
    await writeFile(file, widgets('    - {name: title, type: integer, required: true}'));
    const refused = await app.service.sync.syncFolder();
    const reasons =
      refused?.rejected.filter((rejected) => rejected.source === 'widgets.yaml').map((r) => r.reason) ?? [];
    assert.ok(
      reasons.some((reason) => /removes field colour/.test(reason) && /publish it as v2/.test(reason)),
      reasons.join('\n'),
    );
    assert.ok(reasons.some((reason) => /changes type of field title/.test(reason)));
    assert.equal(
      (await app.call('GET', `${url}?filter[title]=b`)).json<{ data: { colour: string }[] }>().data[0]
        ?.colour,
      'red',
      'v1 still serves',
    );
    await writeFile(file, widgets('    - {name: title, type: integer, required: true}', 'v2'));
    await app.service.sync.syncFolder();
    assert.equal(
      (await app.call('POST', '/api/demo/shop/catalogue/widgets/v2', { body: { title: 7 } })).statusCode,
      201,
    );
  });

  test('declared indexes: created with the table, added and dropped online, bad ones listed', async () => {
    const file = path.join(app.resourcesDir, 'gadgets.yaml');
    const gadgets = (indexes: string) => `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: {name: gadgets}
spec:
  org: demo
  app: shop
  domain: catalogue
  object: gadgets
  version: v1
  fields:
    - {name: region, type: string, required: true, filterable: true}
    - {name: price, type: number, sortable: true}
    - {name: specs, type: json}
${indexes}
`;
    const declared = async () =>
      (
        await app.database.pool.query<{ indexdef: string }>(
          `SELECT indexdef FROM pg_indexes WHERE schemaname = 'rec_demo' AND tablename = 'shop__catalogue__gadgets__v1'
           AND (indexdef LIKE '%(region, price, id)%' OR indexdef LIKE '%(region, created_at, id)%') ORDER BY indexdef`,
        )
      ).rows.map((row) => row.indexdef.replace(/^.* USING /, ''));
    await writeFile(file, gadgets('  indexes:\n    - {fields: [region, price]}'));
    await app.service.sync.syncFolder();
    assert.deepEqual(await declared(), ['btree (region, price, id) WHERE (deleted_at IS NULL)']);

    await writeFile(file, gadgets('  indexes:\n    - {fields: [region, created_at]}'));
    await app.service.sync.syncFolder();
    assert.deepEqual(await declared(), ['btree (region, created_at, id) WHERE (deleted_at IS NULL)']);
    const url = '/api/demo/shop/catalogue/gadgets/v1';
    assert.equal((await app.call('POST', url, { body: { region: 'north', price: 3 } })).statusCode, 201);

    const bad = gadgets(
      '  indexes:\n    - {fields: [region, nope]}\n    - {fields: [specs]}\n    - {fields: []}\n    - {fields: [price, price]}\n    - {fields: [price], unique: true}',
    );
    const report = await applyResources(app.database.pool, parseResourceText(bad, 'gadgets.yaml').documents);
    assert.deepEqual(
      report.rejected.map((rejected) => rejected.path),
      [
        'spec.indexes[0].fields[1]',
        'spec.indexes[1].fields[0]',
        'spec.indexes[2].fields',
        'spec.indexes[3].fields',
        'spec.indexes[4].unique',
      ],
    );
    assert.match(report.rejected[1]?.reason ?? '', /json fields cannot be in an index/);
    assert.deepEqual(
      await declared(),
      ['btree (region, created_at, id) WHERE (deleted_at IS NULL)'],
      'unchanged',
    );
  });

  test('a changed file is picked up by the watcher; OpenAPI is regenerated', async () => {
    const file = path.join(app.resourcesDir, 'suppliers.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace('    - name: tags\n', '    - name: website\n      type: string\n    - name: tags\n'),
    );
    await until(async () => {
      const openapi = (await app.call('GET', '/api/openapi.json')).json() as {
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      };
      return (
        'website' in (openapi.components.schemas.AcmeProcurementSourcingSuppliersV1Record?.properties ?? {})
      );
    }, 'the new field in OpenAPI');
    const created = await app.call('POST', `/api/${suppliersPath}`, {
      body: { name: 'Acme Bolts', country: 'DE', website: 'https://bolts.example' },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  test('/api/metrics counts operations by schema, operation and outcome, with latency histograms', async () => {
    await app.call('GET', `/api/${ordersPath}`);
    await app.call('GET', `/api/${ordersPath}/00000000-0000-0000-0000-000000000000`);
    const text = (await app.call('GET', '/api/metrics', { roles: ['platform-metrics'] })).body;
    assert.match(
      text,
      new RegExp(
        `records_operations_total\\{schema="${ordersPath}",operation="list",outcome="success"[^}]*\\} \\d+`,
      ),
    );
    assert.match(
      text,
      new RegExp(`records_operations_total\\{schema="${ordersPath}",operation="read",outcome="rejected"`),
    );
    assert.match(text, /records_operation_duration_seconds_bucket\{/);
  });
});
