import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';

let database: TestDatabase;
let workflow: TestWorkflow;
before(async () => {
  database = await createMigratedDatabase('workflow');
  workflow = await startTestWorkflow({ database });
});
after(async () => {
  await workflow.close();
  await database.drop();
});

test('an answer carries an ETag; sending it back answers 304 without a body until the data changes', async () => {
  await workflow.createUser('etag@example.com', 'etag password', { platformAdmin: true });
  const token = await workflow.login('etag@example.com', 'etag password');
  const first = await workflow.request({ method: 'GET', url: '/api/v1/orgs', token });
  assert.equal(first.statusCode, 200);
  const etag = first.headers.etag;
  assert.ok(typeof etag === 'string' && etag.startsWith('W/"'), 'a weak ETag');
  const again = await workflow.request({
    method: 'GET',
    url: '/api/v1/orgs',
    token,
    headers: { 'if-none-match': etag },
  });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  const created = await workflow.request({
    method: 'POST',
    url: '/api/v1/orgs',
    token,
    body: { name: 'Etag', slug: 'etag' },
  });
  assert.equal(created.statusCode, 201);
  const changed = await workflow.request({
    method: 'GET',
    url: '/api/v1/orgs',
    token,
    headers: { 'if-none-match': etag },
  });
  assert.equal(changed.statusCode, 200, 'a changed list is sent again');
  assert.notEqual(changed.headers.etag, etag);
});
