import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RecordsErrors } from '../../src/records/errors.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const articlesPath = 'acme/kb/docs/articles/v1';
const articlesYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata:
  name: articles-v1
spec:
  org: acme
  app: kb
  domain: docs
  object: articles
  version: v1
  searchTier: 3
  fields:
    - { name: title, type: string, required: true, searchable: true, sortable: true }
    - { name: body, type: string, searchable: true }
    - { name: views, type: integer, filterable: true, sortable: true }
`;
const corpus = [
  { title: 'Invoice approval workflow', body: 'How approvers sign off an invoice', views: 10 },
  { title: 'Supplier onboarding', body: 'Collect the invoice address and the VAT number', views: 50 },
  { title: 'Travel expenses', body: 'Receipts, mileage and per diem', views: 30 },
  { title: 'Invoice archive', body: 'Where every invoice goes after payment; invoice retention', views: 5 },
];
type Hit = { title: string; _text_match: number; views: number };

describe('records search', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
    await writeFile(path.join(app.resourcesDir, 'articles.yaml'), articlesYaml);
    const report = await app.service.sync.syncFolder();
    assert.deepEqual(report?.rejected, []);
    for (const article of corpus) {
      const response = await app.call('POST', `/api/${articlesPath}`, { body: article });
      assert.equal(response.statusCode, 201, response.body);
    }
  });
  after(() => app.close());

  const search = (body: unknown) => app.call('POST', `/api/${articlesPath}/search`, { body });

  test('ranks a fixed corpus: title matches before body matches, more matches first', async () => {
    const response = await search({ q: 'invoice' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{ data: Hit[]; search_stats: { total_hits: number; took_ms: number } }>();
    assert.deepEqual(
      body.data.map((hit) => hit.title),
      ['Invoice archive', 'Invoice approval workflow', 'Supplier onboarding'],
    );
    assert.equal(body.search_stats.total_hits, 3);
    assert.ok(body.search_stats.took_ms >= 0);
    assert.ok(body.data[0]!._text_match > body.data[2]!._text_match);
  });

  test('tolerates typos (trigram similarity)', async () => {
    const response = await search({ q: 'invoise' });
    assert.equal(response.statusCode, 200, response.body);
    const titles = response.json<{ data: Hit[] }>().data.map((hit) => hit.title);
    assert.ok(titles.includes('Invoice archive'), titles.join());
    assert.ok(!titles.includes('Travel expenses'));
  });

  test('filter_by and sort_by follow the list filter semantics', async () => {
    const response = await search({ q: 'invoice', filter_by: 'views:>=10', sort_by: 'views:desc' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response.json<{ data: Hit[] }>().data.map((hit) => hit.views),
      [50, 10],
    );
    for (const bad of [
      { q: 'x', filter_by: 'body:=x' },
      { q: 'x', filter_by: 'views:>ten' },
      { q: 'x', sort_by: 'body:asc' },
      { q: '' },
    ])
      assert.equal((await search(bad)).statusCode, 400, JSON.stringify(bad));
  });

  test('a schema below tier 3 answers 400 naming the tier it needs', async () => {
    const response = await app.call('POST', '/api/acme/procurement/sourcing/suppliers/v1/search', {
      body: { q: 'x' },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json<{
      code: string;
      message: string;
      details: { errors: { reason: string }[] };
    }>();
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.match(body.details.errors[0]!.reason, /tier 3/);
  });

  test('org search covers every searchable schema the actor may read, best first', async () => {
    await app.call('POST', '/api/acme/procurement/sourcing/suppliers/v1', {
      body: { name: 'Invoice Printing Ltd', country: 'DE' },
    });
    const response = await app.call('GET', '/api/acme/search?q=invoice');
    assert.equal(response.statusCode, 200, response.body);
    const hits = response.json<{ data: { schema: string; id: string; fields: Record<string, unknown> }[] }>()
      .data;
    assert.ok(hits.some((hit) => hit.schema === 'acme/procurement/sourcing/suppliers/v1'));
    assert.equal(hits.filter((hit) => hit.schema === articlesPath).length, 3);
    assert.deepEqual(Object.keys(hits[0]!).sort(), ['fields', 'id', 'schema']);
    const viewer = await app.call('GET', '/api/acme/search?q=invoice', { roles: ['nobody'] });
    assert.equal(viewer.statusCode, 200, viewer.body);
    assert.deepEqual(
      viewer
        .json<{ data: { schema: string }[] }>()
        .data.map((hit) => hit.schema)
        .filter((schema) => schema !== articlesPath),
      [],
      'schemas the actor may not read are left out',
    );
  });

  test('an unreachable search backend is 503 TYPESENSE_UNAVAILABLE', async () => {
    const { createRecordsService } = await import('../../src/records/index.js');
    const { loadConfig } = await import('../../src/platform/config/index.js');
    const { captureLogs } = await import('../helpers/log-capture.js');
    const service = await createRecordsService({
      config: loadConfig({
        RECORDS_RESOURCES_DIR: app.resourcesDir,
        RECORDS_JWT_SECRET: 'records-test-secret-0123456789abcdef0123',
        RECORDS_JWT_ISSUER: 'https://issuer.test',
      }),
      pool: app.database.pool,
      logger: captureLogs('fatal').logger,
      search: {
        search: () => Promise.reject(RecordsErrors.searchUnavailable()),
        searchOrg: () => Promise.reject(RecordsErrors.searchUnavailable()),
      },
    });
    try {
      const response = await service.app.inject({
        method: 'POST',
        url: `/api/${articlesPath}/search`,
        headers: { authorization: `Bearer ${await app.token()}` },
        payload: { q: 'invoice' },
      });
      assert.equal(response.statusCode, 503);
      assert.equal(response.json<{ code: string }>().code, 'TYPESENSE_UNAVAILABLE');
    } finally {
      await service.close();
    }
  });
});
