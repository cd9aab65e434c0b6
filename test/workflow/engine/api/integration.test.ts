import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { ExternalTaskWorker } from '../../../../src/worker/index.js';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

describe('the engine with its neighbours', () => {
  let f: EngineFixture;
  let baseUrl: string;
  before(async () => {
    f = await createEngineFixture();
    for (const fixture of ['payment.bpmn', 'discount.bpmn'])
      assert.equal((await f.deploy(fixture)).statusCode, 201);
    baseUrl = await f.workflow.service.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => f.close());

  test('the shipped ExternalTaskWorker completes tasks of the real engine over HTTP', async () => {
    const worker = new ExternalTaskWorker({
      baseUrl,
      workerId: 'shipped',
      asyncResponseTimeoutMs: 2000,
      pollIntervalMs: 0,
    });
    const seen: number[] = [];
    worker.subscribe<{ amount: number }>('charge', (task) => {
      seen.push(task.variables.amount);
      return Promise.resolve({ charged: task.variables.amount * 100 });
    });
    worker.start();
    try {
      const started = await Promise.all([
        f.start('payment', { amount: 1 }),
        f.start('payment', { amount: 2 }),
      ]);
      for (const instance of started) {
        let detail = await f.instance(instance.id);
        for (let i = 0; i < 100 && detail.state !== 'completed'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          detail = await f.instance(instance.id);
        }
        assert.equal(detail.state, 'completed');
        const variables = detail.variables as { amount: number; charged: number };
        assert.equal(variables.charged, variables.amount * 100);
      }
      assert.deepEqual(seen.sort(), [1, 2]);
    } finally {
      await worker.stop();
    }
  });

  test('a business rule task evaluates the deployed decision and maps a single entry', async () => {
    const dmn = await readFile(new URL('./fixtures/discount.dmn', import.meta.url), 'utf8');
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/decisions',
      token: f.tokens.developer,
      headers: { 'x-org-id': f.orgId },
      body: { xml: dmn },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    const gold = await f.start('quote', { customer: 'gold' });
    assert.equal(gold.state, 'completed');
    assert.equal((gold.variables as { discount: number }).discount, 0.2);
    const plain = await f.start('quote', { customer: 'silver' });
    assert.equal((plain.variables as { discount: number }).discount, 0);
  });

  test('an unknown decision raises an incident naming it', async () => {
    const xml = (await fixtureXml('discount.bpmn'))
      .replace('camunda:decisionRef="discount"', 'camunda:decisionRef="missing"')
      .replace('id="quote"', 'id="quote2"');
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
    assert.equal(deployed.statusCode, 201);
    const instance = await f.start('quote2', { customer: 'gold' });
    assert.equal(instance.state, 'incident');
    assert.match(JSON.stringify((await f.instance(instance.id)).incidents), /missing/);
  });

  test('a collaboration deploys each executable process as its own key', async () => {
    const xml = await fixtureXml('collaboration.bpmn');
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
    assert.equal(response.statusCode, 201, response.body);
    const keys = (response.json() as { definitions: { process_key: string; version: number }[] }).definitions;
    assert.deepEqual(keys.map((d) => [d.process_key, d.version]).sort(), [
      ['shop', 1],
      ['warehouse', 1],
    ]);
  });

  test('/metrics counts instances, jobs and external tasks, and instance durations', async () => {
    const metrics = (await f.workflow.request({ method: 'GET', url: '/metrics' })).body;
    assert.match(
      metrics,
      /weft_process_instances_total\{[^}]*process_key="payment"[^}]*event="started"[^}]*\} [1-9]/,
    );
    assert.match(
      metrics,
      /weft_process_instances_total\{[^}]*process_key="payment"[^}]*event="completed"[^}]*\} [1-9]/,
    );
    assert.match(metrics, /weft_jobs_total\{[^}]*type="external_task"[^}]*event="created"[^}]*\} [1-9]/);
    assert.match(metrics, /weft_external_tasks_total\{[^}]*event="completed"[^}]*\} [1-9]/);
    assert.match(metrics, /weft_process_instance_duration_seconds_count\{[^}]*process_key="quote"/);
  });
});
