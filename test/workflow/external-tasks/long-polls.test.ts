import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';
import { deployAsAdmin } from '../engine/api/engine-fixture.js';

const longPollMs = 4000;

describe('fetch-and-lock long polls', () => {
  let workflow: TestWorkflow;
  let admin: string;
  let orgId: string;
  before(async () => {
    workflow = await startTestWorkflow({
      env: { WORKFLOW_LONG_POLLS_PER_CLIENT: '20', WORKFLOW_LONG_POLLS_MAX: '30' },
      timerLeader: false,
    });
    ({ admin, orgId } = await deployAsAdmin(workflow, 'payment.bpmn'));
  });
  after(() => workflow.close());

  const fetchFrom = (address: string, topic: string, asyncMs?: number) =>
    workflow.service.app.inject({
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      remoteAddress: address,
      payload: {
        worker_id: `worker-${address}`,
        max_tasks: 1,
        topics: [{ topic_name: topic, lock_duration_ms: 10_000 }],
        ...(asyncMs === undefined ? {} : { async_response_timeout_ms: asyncMs }),
      },
    });
  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const value = await work();
    return { value, ms: performance.now() - started };
  };

  test('20 waiting long polls delay neither /health nor a start; the per-client and total bounds answer 429 U429', async () => {
    const waiting = Array.from({ length: 20 }, () => fetchFrom('10.0.0.1', 'nothing-here', longPollMs));
    await new Promise((resolve) => setTimeout(resolve, 300));

    for (let i = 0; i < 5; i++) {
      const health = await timed(() => workflow.request({ method: 'GET', url: '/health' }));
      assert.equal(health.value.statusCode, 200);
      assert.ok(health.ms < 1000, `/health took ${Math.round(health.ms)} ms with 20 long polls waiting`);
    }
    const start = await timed(() =>
      workflow.request({
        method: 'POST',
        url: '/api/v1/process-instances',
        token: admin,
        body: { org_id: orgId, process_key: 'payment', variables: { amount: 5 } },
      }),
    );
    assert.equal(start.value.statusCode, 201, start.value.body);
    assert.ok(start.ms < 1000, `a start took ${Math.round(start.ms)} ms with 20 long polls waiting`);

    // The 21st long poll of the same client is refused at once, in the error body.
    const refused = await timed(() => fetchFrom('10.0.0.1', 'nothing-here', longPollMs));
    assert.equal(refused.value.statusCode, 429);
    assert.equal(refused.value.headers['retry-after'], '1');
    const body = refused.value.json() as { code: string; details: { retry_after_seconds: number } };
    assert.equal(body.code, 'U429');
    assert.equal(body.details.retry_after_seconds, 1);
    assert.ok(refused.ms < 500, `the refusal took ${Math.round(refused.ms)} ms`);

    // A fetch that does not wait holds nothing and is not bounded.
    const immediate = await fetchFrom('10.0.0.1', 'nothing-here');
    assert.equal(immediate.statusCode, 200);

    // Another client has its own allowance, up to the service's total (30).
    const others = Array.from({ length: 10 }, () => fetchFrom('10.0.0.2', 'nothing-here', longPollMs));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const overTotal = await fetchFrom('10.0.0.3', 'nothing-here', longPollMs);
    assert.equal(overTotal.statusCode, 429);

    for (const response of await Promise.all([...waiting, ...others])) {
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), []);
    }
    // Finished polls give their slots back.
    const again = await fetchFrom('10.0.0.1', 'nothing-here', 100);
    assert.equal(again.statusCode, 200);
  });

  test('a waiting long poll is woken by a new task of its topic', async () => {
    const poll = timed(() => fetchFrom('10.0.0.9', 'charge', longPollMs));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = await workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: admin,
      body: { org_id: orgId, process_key: 'payment', variables: { amount: 7 } },
    });
    assert.equal(started.statusCode, 201);
    const { value, ms } = await poll;
    assert.equal(value.statusCode, 200);
    assert.equal((value.json() as unknown[]).length, 1);
    assert.ok(ms < longPollMs - 500, `woken after ${Math.round(ms)} ms`);
  });
});
