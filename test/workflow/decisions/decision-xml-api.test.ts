import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';
import { definitions, literalDecision } from '../../lib/dmn/dmn-fixtures.js';

interface DecisionXml {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  xml: string;
}

const file = (text: string) =>
  definitions(
    literalDecision('answer', 'Answer', text, { inputs: [] }) +
      literalDecision('other', 'Other', '2', { inputs: [] }),
  );

describe('GET /api/v1/decisions/{decision_key}/xml', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let reader: string;
  let outsider: string;
  let org: string;
  const first = file('41');
  const second = file('42');

  before(async () => {
    workflow = await startTestWorkflow();
    await workflow.createUser('root@example.com', 'root password', { platformAdmin: true });
    admin = await workflow.login('root@example.com', 'root password');
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/orgs',
      token: admin,
      body: { name: 'Acme', slug: 'acme' },
    });
    org = (created.json() as { id: string }).id;
    const readerId = await workflow.createUser('reader@example.com', 'a long password');
    await workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${org}/members/${readerId}`,
      token: admin,
      body: { roles: ['Reader'] },
    });
    reader = await workflow.login('reader@example.com', 'a long password');
    await workflow.createUser('outsider@example.com', 'a long password');
    outsider = await workflow.login('outsider@example.com', 'a long password');
    for (const xml of [first, second]) {
      const deployed = await workflow.request({
        method: 'POST',
        url: '/api/v1/decisions',
        token: admin,
        headers: { 'x-org-id': org },
        body: { xml },
      });
      assert.equal(deployed.statusCode, 201, deployed.body);
    }
  });
  after(() => workflow.close());

  const read = (url: string, token = reader, orgId = org) =>
    workflow.request({ method: 'GET', url, token, headers: { 'x-org-id': orgId } });

  test('answers the latest version with the file it was deployed in, to any role in the org', async () => {
    const response = await read('/api/v1/decisions/answer/xml');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as DecisionXml;
    assert.equal(body.decision_key, 'answer');
    assert.equal(body.version, 2);
    assert.equal(body.name, 'Answer');
    assert.equal(body.xml, second);
  });

  test('answers a pinned version', async () => {
    const response = await read('/api/v1/decisions/answer/xml?version=1');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as DecisionXml).xml, first);
    const unchanged = await read('/api/v1/decisions/other/xml');
    assert.equal((unchanged.json() as DecisionXml).version, 1, 'an identical redeploy made no version');
  });

  test('404 for an unknown key or version or org, 403 outside the org, 400 for a bad version', async () => {
    assert.equal((await read('/api/v1/decisions/nothing/xml')).statusCode, 404);
    const missing = await read('/api/v1/decisions/answer/xml?version=9');
    assert.equal(missing.statusCode, 404);
    assert.match((missing.json() as { message: string }).message, /version 9/);
    assert.equal(
      (await read('/api/v1/decisions/answer/xml', admin, '00000000-0000-4000-8000-000000000000')).statusCode,
      404,
    );
    assert.equal((await read('/api/v1/decisions/answer/xml', outsider)).statusCode, 403);
    assert.equal((await read('/api/v1/decisions/answer/xml?version=0')).statusCode, 400);
  });
});
