import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('script task pipelines in running instances', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('pipeline.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  test('each step sees the variables the previous one left; the instance completes in the start call', async () => {
    const instance = await f.start('enrich', { customer: 'Ada', items: [{ price: 10 }, { price: 30 }] });
    assert.equal(instance.state, 'completed');
    const variables = instance.variables as Record<string, unknown>;
    assert.equal(variables.total, 40);
    assert.equal(variables.vat, 8);
    assert.equal(variables.label, 'Ada owes 48');
  });

  test('every step is a history entry with name, index, type, duration and status', async () => {
    const instance = await f.start('enrich', { customer: 'Bo', items: [{ price: 1 }] });
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${instance.id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; data: Record<string, unknown> }[];
    const steps = history.filter((entry) => entry.kind === 'scriptStep').map((entry) => entry.data);
    assert.deepEqual(
      steps.map(({ name, index, type, status }) => ({ name, index, type, status })),
      [
        { name: 'totals', index: 0, type: 'jq', status: 'ok' },
        { name: 'vat', index: 1, type: 'feel', status: 'ok' },
        { name: 'label', index: 2, type: 'rhai', status: 'ok' },
      ],
    );
    assert.ok(steps.every((step) => typeof step.duration_ms === 'number'));
  });

  test('a failing step stops the pipeline and raises an incident naming the step', async () => {
    const instance = await f.start('enrich', { customer: 'Cy', items: 'not a list' });
    assert.equal(instance.state, 'incident');
    const detail = await f.instance(instance.id);
    const incidents = detail.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents[0]?.activity_id, 'enrichTask');
    assert.match(incidents[0]?.message ?? '', /step 1 'totals' \(jq\)/);
    assert.equal((detail.variables as Record<string, unknown>).vat, undefined, 'later steps did not run');
  });

  test('a pipeline with an unknown step type is rejected at deploy time', async () => {
    const xml = (await import('node:fs/promises')).readFile(
      new URL('./fixtures/pipeline.bpmn', import.meta.url),
      'utf8',
    );
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: {
        org_id: f.orgId,
        process_group_id: f.groupId,
        xml: (await xml).replace('type="feel"', 'type="python"'),
      },
    });
    assert.equal(response.statusCode, 400);
    assert.match(JSON.stringify(response.json()), /python/);
  });
});
