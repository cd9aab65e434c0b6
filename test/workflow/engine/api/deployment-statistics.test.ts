import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface Counts {
  running: number;
  incident: number;
  completed: number;
  cancelled: number;
  terminated: number;
}

describe('deployment statistics', () => {
  let f: EngineFixture;
  let paymentId: string;
  before(async () => {
    f = await createEngineFixture();
    const deployed = await f.deploy('payment.bpmn');
    assert.equal(deployed.statusCode, 201, deployed.body);
    paymentId = (deployed.json() as { id: string }).id;
    await f.start('payment');
    await f.start('payment');
    await f.start('payment');
    const [failing, completing] = await f.fetch('w1', 'charge', 2);
    assert.ok(failing && completing);
    const failure = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${failing.id}/failure`,
      body: { worker_id: 'w1', error_message: 'card reader down', retries: 0, retry_timeout_ms: 0 },
    });
    assert.equal(failure.statusCode, 204, failure.body);
    const completed = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${completing.id}/complete`,
      body: { worker_id: 'w1', variables: {} },
    });
    assert.equal(completed.statusCode, 204, completed.body);
  });
  after(() => f.close());

  test("a version's statistics count its instances by state and its tokens and incidents per element", async () => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/${paymentId}/statistics`,
      token: f.tokens.reader,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as {
      instances: Counts;
      elements: { element_id: string; active: number; incidents: number }[];
    };
    assert.deepEqual(body.instances, { running: 1, incident: 1, completed: 1, cancelled: 0, terminated: 0 });
    assert.deepEqual(body.elements, [{ element_id: 'charge', active: 2, incidents: 1 }]);
  });

  test('the org statistics list instance counts per version', async () => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/statistics?org_id=${f.orgId}`,
      token: f.tokens.operator,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), [
      { definition_id: paymentId, running: 1, incident: 1, completed: 1, cancelled: 0, terminated: 0 },
    ]);
    const otherKey = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/statistics?org_id=${f.orgId}&process_key=nothing`,
      token: f.tokens.reader,
    });
    assert.deepEqual(otherKey.json(), []);
  });

  test('statistics need a role in the org (403) and a known version (404)', async () => {
    const outsider = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/${paymentId}/statistics`,
      token: f.tokens.outsider,
    });
    assert.equal(outsider.statusCode, 403);
    const orgWide = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/statistics?org_id=${f.orgId}`,
      token: f.tokens.outsider,
    });
    assert.equal(orgWide.statusCode, 403);
    const unknown = await f.workflow.request({
      method: 'GET',
      url: '/api/v1/deployments/00000000-0000-4000-8000-000000000000/statistics',
      token: f.tokens.reader,
    });
    assert.equal(unknown.statusCode, 404);
    const anonymous = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/deployments/${paymentId}/statistics`,
    });
    assert.equal(anonymous.statusCode, 401);
  });
});
