import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../../helpers/workflow.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

async function metricsText(workflow: TestWorkflow): Promise<string> {
  const response = await workflow.request({ method: 'GET', url: '/metrics' });
  assert.equal(response.statusCode, 200);
  return response.body;
}

/** The value of the first sample of `name` whose labels include `labels` (the registry adds `service`). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => present.includes(`${key}="${value}"`)))
      return Number(match[3]);
  }
  return undefined;
}

describe('timer metrics on /metrics', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-21T10:00:00Z');
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    assert.equal((await f.deploy('timers.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  test('firings are counted and their lateness (actual − due) observed', async () => {
    const before = await metricsText(f.workflow);
    assert.equal(sample(before, 'weft_timer_lateness_seconds_count'), 0);
    await f.start('wait'); // due in one hour
    await f.start('wait');
    now = new Date(now.getTime() + 3_600_000 + 3_000); // fired 3 s late
    const fired = await f.workflow.service.fireDueTimers();
    assert.equal(fired.fired, 2);
    const text = await metricsText(f.workflow);
    assert.equal(sample(text, 'weft_timer_firings_total', { outcome: 'fired' }), 2);
    assert.equal(sample(text, 'weft_timer_lateness_seconds_count'), 2);
    assert.equal(sample(text, 'weft_timer_lateness_seconds_sum'), 6);
    assert.equal(sample(text, 'weft_timer_lateness_seconds_bucket', { le: '2' }), 0);
    assert.equal(sample(text, 'weft_timer_lateness_seconds_bucket', { le: '5' }), 2);
    assert.equal(sample(text, 'weft_timer_leader'), 0, 'a service on a moved clock never leads');
  });
});

describe('the leader gauge', () => {
  let a: TestWorkflow;
  let b: TestWorkflow;
  before(async () => {
    a = await startTestWorkflow({ timerLeader: true });
    b = await startTestWorkflow({ timerLeader: true, database: a.database });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  test('is 1 on exactly one of two services sharing a database', async () => {
    const deadline = Date.now() + 5_000;
    let gauges: (number | undefined)[] = [];
    while (Date.now() < deadline) {
      gauges = [
        sample(await metricsText(a), 'weft_timer_leader'),
        sample(await metricsText(b), 'weft_timer_leader'),
      ];
      if (gauges.includes(1)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual([...gauges].sort(), [0, 1]);
  });
});
