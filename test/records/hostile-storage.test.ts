import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startRecordsApp, suppliersPath, type Body, type RecordsTestApp } from './support/records-app.js';

const notesPath = 'acme/hostile/test/notes/v1';
const notesYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata:
  name: notes-v1
spec:
  org: acme
  app: hostile
  domain: test
  object: notes
  version: v1
  searchTier: 2
  fields:
    - { name: label, type: string, filterable: true }
    - { name: doc, type: json, searchable: true }
  access:
    roles:
      create: [admin]
      read: [admin]
      update: [admin]
      delete: [admin]
`;

// JSON text nested `depth` arrays deep (JSON.stringify itself overflows near 5,000 levels).
const nestedJson = (depth: number) => `${'['.repeat(depth)}"leaf"${']'.repeat(depth)}`;

/** The regressions of issue 16's "server errors" list that reach the records service. */
describe('records refuses input PostgreSQL cannot take with 400, not 500', () => {
  let app: RecordsTestApp;
  let supplierId: string;
  const auditor = { roles: ['admin', 'platform-auditor'] };
  const assertRefused = (response: LightMyRequestResponse, what: string) => {
    assert.ok(
      response.statusCode >= 400 && response.statusCode < 500,
      `${what}: ${response.statusCode} ${response.body}`,
    );
    const body = response.json<Body>();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message', 'requestId'], what);
  };

  before(async () => {
    app = await startRecordsApp(
      { RECORDS_RATE_LIMIT_PER_MINUTE: '100000' },
      { resources: { 'notes.yaml': notesYaml } },
    );
    const created = await app.call('POST', `/api/${suppliersPath}`, {
      body: { name: 'Hostile Supplies', country: 'DE' },
    });
    assert.equal(created.statusCode, 201, created.body);
    supplierId = created.json<Body>().data.id;
  });
  after(() => app.close());

  test('NUL in a record field, a query value, the auth-audit actor and the org search is 400', async () => {
    for (const [what, response] of [
      [
        'record field',
        await app.call('POST', `/api/${suppliersPath}`, { body: { name: 'a\u0000b', country: 'DE' } }),
      ],
      ['filter value', await app.call('GET', `/api/${suppliersPath}?filter[name]=a%00b`)],
      ['audit actor', await app.call('GET', '/api/platform/audit/auth?actor=a%00b', auditor)],
      ['org search', await app.call('GET', '/api/acme/search?q=a%00b')],
    ] as const) {
      assertRefused(response, what);
      assert.equal(response.statusCode, 400, what);
      assert.equal(response.json<Body>().code, 'VALIDATION_ERROR', what);
    }
  });

  test('a lone surrogate in record JSON is 400 naming the field', async () => {
    const response = await app.service.app.inject({
      method: 'POST',
      url: `/api/${suppliersPath}`,
      headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/json' },
      payload: '{"name":"Lone","country":"DE","tags":{"x":"\\udc00"}}',
    });
    assertRefused(response, 'lone surrogate');
    assert.equal(response.json<Body>().details.errors[0]?.field, 'body.tags.x');
  });

  test('record JSON nested 5,000 deep is 400', async () => {
    const response = await app.service.app.inject({
      method: 'POST',
      url: `/api/${suppliersPath}`,
      headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/json' },
      payload: `{"name":"Deep","country":"DE","tags":${nestedJson(5000)}}`,
    });
    assertRefused(response, 'deep JSON');
    assert.match(response.body, /deeper than 128 levels/);
  });

  test('audit/auth?before=1e308 is 400', async () => {
    for (const before of ['1e308', '9223372036854775808']) {
      const response = await app.call('GET', `/api/platform/audit/auth?before=${before}`, auditor);
      assertRefused(response, `before=${before}`);
    }
  });

  test('time-machine timestamps PostgreSQL rejects are 4xx', async () => {
    for (const at of ['0000-01-01T00:00:00Z', '2024-02-30T00:00:00Z', '2024-01-01T00:00:00+16:00']) {
      const encoded = encodeURIComponent(at);
      assertRefused(
        await app.call('GET', `/api/${suppliersPath}/${supplierId}/history?at=${encoded}`),
        `history at ${at}`,
      );
      assertRefused(
        await app.call('GET', `/api/${suppliersPath}/${supplierId}/diff?from=${encoded}&to=${encoded}`),
        `diff ${at}`,
      );
      assertRefused(
        await app.call('POST', `/api/${suppliersPath}/${supplierId}/restore`, {
          body: { at, reason: 'test' },
        }),
        `restore ${at}`,
      );
    }
  });

  test('a value too large for its btree index or for full-text indexing is 400', async () => {
    // Random text does not compress, so the index entry really is over PostgreSQL's ~2,700 bytes.
    const label = randomBytes(3000).toString('base64').slice(0, 4000);
    const indexed = await app.call('POST', `/api/${notesPath}`, { body: { label } });
    assertRefused(indexed, 'indexed string');
    assert.equal(indexed.statusCode, 400);
    const words = Array.from({ length: 160_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    const searchable = await app.call('POST', `/api/${notesPath}`, {
      body: { label: 'big', doc: { text: words.join(' ') } },
    });
    assertRefused(searchable, 'searchable json');
    assert.equal(searchable.statusCode, 400);
    const fine = await app.call('POST', `/api/${notesPath}`, {
      body: { label: 'small', doc: { text: 'hello' } },
    });
    assert.equal(fine.statusCode, 201, fine.body);
  });
});
