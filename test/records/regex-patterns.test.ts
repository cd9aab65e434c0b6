import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyResources } from '../../src/records/schemas/apply-resources.js';
import { parseResourceText } from '../../src/records/schemas/resource-documents.js';
import { startRecordsApp, type Body, type RecordsTestApp } from './support/records-app.js';

const codesPath = 'acme/hostile/test/codes/v1';
const codesYaml = (pattern: string, object = 'codes') => `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata:
  name: ${object}-v1
spec:
  org: acme
  app: hostile
  domain: test
  object: ${object}
  version: v1
  fields:
    - { name: code, type: string, pattern: '${pattern}' }
  access:
    roles:
      create: [admin]
      read: [admin]
      update: [admin]
      delete: [admin]
`;

/** Issue 16: a schema `pattern` is matched by RE2, so no input can make it backtrack for seconds. */
describe('records schema patterns run on RE2', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp(
      { RECORDS_RATE_LIMIT_PER_MINUTE: '100000' },
      { resources: { 'codes.yaml': codesYaml('^(a+)+$') } },
    );
  });
  after(() => app.close());

  test("^(a+)+$ against 'a'×40 + 'b' is refused within a second; a matching value is stored", async () => {
    const started = performance.now();
    const refused = await app.call('POST', `/api/${codesPath}`, { body: { code: `${'a'.repeat(40)}b` } });
    const elapsed = performance.now() - started;
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json<Body>().code, 'VALIDATION_ERROR');
    assert.ok(elapsed < 1000, `took ${elapsed.toFixed(0)} ms`);
    const stored = await app.call('POST', `/api/${codesPath}`, { body: { code: 'a'.repeat(40) } });
    assert.equal(stored.statusCode, 201, stored.body);
  });

  test('a pattern RE2 cannot compile (a backreference, a lookahead) is refused when the schema is applied', async () => {
    for (const [object, pattern] of [
      ['backrefs', '^(a)\\1$'],
      ['lookaheads', '^(?=a)a$'],
    ] as const) {
      const parsed = parseResourceText(codesYaml(pattern, object), `${object}.yaml`);
      const report = await applyResources(app.database.pool, parsed.documents);
      assert.equal(report.rejected.length, 1, object);
      assert.equal(report.rejected[0]?.path, 'spec.fields[0].pattern', object);
      assert.match(report.rejected[0]?.reason ?? '', /not a valid RE2 regular expression/, object);
    }
  });
});
