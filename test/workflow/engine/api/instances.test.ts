import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('process instances, external tasks and user tasks', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_ENGINE_MAX_STEPS: '50' });
    for (const fixture of ['payment.bpmn', 'parallel.bpmn', 'scripts-only.bpmn', 'endless-loop.bpmn']) {
      assert.equal((await f.deploy(fixture)).statusCode, 201, fixture);
    }
  });
  after(() => f.close());

  test('a process of script tasks and gateways returns already completed from the start call', async () => {
    const big = await f.start('pricing', { price: 30, quantity: 5 });
    assert.equal(big.state, 'completed');
    assert.deepEqual(big.variables, { price: 30, quantity: 5, total: 150, category: 'big' });
    assert.notEqual(big.ended_at, null);
    const small = await f.start('pricing', { price: 1, quantity: 5 });
    assert.equal((small.variables as { category: string }).category, 'small');
  });

  test('start → external task → complete: the worker sees the instance variables and its result lands in them', async () => {
    const started = await f.start('payment', { amount: 42 });
    assert.equal(started.state, 'running');
    assert.equal(typeof started.counter, 'number');
    assert.deepEqual((await f.instance(started.id)).active_element_ids, ['charge']);
    const tasks = await f.fetch('worker-1', 'charge');
    const task = tasks.find((t) => t.process_instance_id === started.id);
    assert.ok(task);
    assert.deepEqual(task.variables, { amount: 42 });
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1', variables: { receipt: 'r-1' } },
    });
    assert.equal(done.statusCode, 204);
    const finished = await f.instance(started.id);
    assert.equal(finished.state, 'completed');
    assert.deepEqual(finished.variables, { amount: 42, receipt: 'r-1' });
    const again = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'worker-1' },
    });
    assert.equal(again.statusCode, 404, 'completing twice');
    const history = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${started.id}/history`,
      token: f.tokens.reader,
    });
    const kinds = (history.json() as { kind: string; element_id: string }[]).map(
      (h) => `${h.kind}:${h.element_id}`,
    );
    assert.ok(kinds.indexOf('elementActivated:charge') < kinds.indexOf('elementCompleted:charge'));
    assert.ok(kinds.includes('instanceEnded:payment'), kinds.join(' '));
  });

  test('a task locked by another worker, or whose lock expired, answers 409; unlock makes it fetchable again', async () => {
    const started = await f.start('payment', { amount: 1 });
    const [task] = (await f.fetch('owner', 'charge')).filter((t) => t.process_instance_id === started.id);
    assert.ok(task);
    const stranger = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'stranger' },
    });
    assert.equal(stranger.statusCode, 409);
    assert.equal((stranger.json() as { code: string }).code, 'U409');
    assert.equal(
      (await f.fetch('other', 'charge')).some((t) => t.id === task.id),
      false,
      'a locked task is not fetched',
    );
    const extend = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/external-tasks/${task.id}/lock`,
      body: { worker_id: 'owner', new_duration_ms: 1 },
    });
    assert.equal(extend.statusCode, 204);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const expired = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'owner' },
    });
    assert.equal(expired.statusCode, 409, 'an expired lock');
    assert.ok(
      (await f.fetch('other', 'charge')).some((t) => t.id === task.id),
      'an expired lock makes the task fetchable',
    );
    assert.equal(
      (await f.workflow.request({ method: 'DELETE', url: `/api/v1/external-tasks/${task.id}/lock` }))
        .statusCode,
      204,
    );
    assert.ok((await f.fetch('third', 'charge')).some((t) => t.id === task.id));
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/complete`,
      body: { worker_id: 'third' },
    });
  });

  test('failure with retries left is retried after the timeout; retries 0 raises an incident; retry resumes', async () => {
    const started = await f.start('payment', { amount: 2 });
    const [task] = (await f.fetch('w', 'charge')).filter((t) => t.process_instance_id === started.id);
    assert.ok(task);
    const failed = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/failure`,
      body: { worker_id: 'w', error_message: 'gateway timeout', retries: 1, retry_timeout_ms: 60_000 },
    });
    assert.equal(failed.statusCode, 204);
    assert.equal(
      (await f.fetch('w', 'charge')).some((t) => t.id === task.id),
      false,
      'not before the retry timeout',
    );
    // A second in the past: the fetch compares with the service's clock, whose milliseconds may not
    // yet have reached the database's microseconds.
    await f.workflow.database.pool.query(
      `UPDATE external_tasks SET due_at = now() - interval '1 second' WHERE id = $1`,
      [task.id],
    );
    const [retried] = (await f.fetch('w', 'charge')).filter((t) => t.id === task.id);
    assert.ok(retried);
    const last = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/failure`,
      body: { worker_id: 'w', error_message: 'card service down', retries: 0, retry_timeout_ms: 0 },
    });
    assert.equal(last.statusCode, 204);
    const withIncident = await f.instance(started.id);
    assert.equal(withIncident.state, 'incident');
    const incidents = withIncident.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 'charge');
    assert.match(incidents[0]?.message ?? '', /card service down/);
    const retry = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${started.id}/retry`,
      token: f.tokens.operator,
    });
    assert.equal(retry.statusCode, 200);
    assert.equal((retry.json() as { state: string }).state, 'running');
    const [fresh] = (await f.fetch('w', 'charge')).filter((t) => t.process_instance_id === started.id);
    assert.ok(fresh, 'the task is fetchable again with its retries back');
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${fresh.id}/complete`,
      body: { worker_id: 'w' },
    });
    assert.equal((await f.instance(started.id)).state, 'completed');
  });

  test('a bpmn-error lands on the matching boundary event and opens the user task; the assignee completes it', async () => {
    const started = await f.start('payment', { amount: 3 });
    const [task] = (await f.fetch('w', 'charge')).filter((t) => t.process_instance_id === started.id);
    assert.ok(task);
    const thrown = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/external-tasks/${task.id}/bpmn-error`,
      body: { worker_id: 'w', error_code: 'DECLINED', variables: { reason: 'insufficient funds' } },
    });
    assert.equal(thrown.statusCode, 204);
    assert.deepEqual((await f.instance(started.id)).active_element_ids, ['review']);
    const tasks = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${started.id}`,
      token: f.tokens.reader,
    });
    const [userTask] = tasks.json() as {
      id: string;
      assignee: string;
      candidate_groups: string[];
      name: string;
    }[];
    assert.ok(userTask);
    assert.equal(userTask.assignee, 'reviewer@example.com');
    assert.deepEqual(userTask.candidate_groups, ['finance']);
    assert.equal(userTask.name, 'Review payment');
    const byReader = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${userTask.id}/complete`,
      token: f.tokens.reader,
      body: {},
    });
    assert.equal(byReader.statusCode, 403);
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${userTask.id}/complete`,
      token: f.tokens.operator,
      body: { variables: { approved: false } },
    });
    assert.equal(done.statusCode, 204);
    const finished = await f.instance(started.id);
    assert.equal(finished.state, 'completed');
    assert.equal((finished.variables as { approved: boolean }).approved, false);
    const twice = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${userTask.id}/complete`,
      token: f.tokens.operator,
      body: {},
    });
    assert.equal(twice.statusCode, 404);
  });

  test('cancel withdraws the open work; a cancelled instance cannot be cancelled again', async () => {
    const started = await f.start('payment', { amount: 4 });
    const cancelled = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${started.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.equal(cancelled.statusCode, 200);
    assert.equal((cancelled.json() as { state: string }).state, 'cancelled');
    const { rows } = await f.workflow.database.pool.query(
      'SELECT count(*)::int AS n FROM external_tasks WHERE process_instance_id = $1',
      [started.id],
    );
    assert.deepEqual(rows, [{ n: 0 }]);
    const again = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${started.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.equal(again.statusCode, 409);
    const byReader = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${(await f.start('payment')).id}/cancel`,
      token: f.tokens.reader,
    });
    assert.equal(byReader.statusCode, 403);
  });

  test('a loop without a wait state stops with an incident instead of hanging', async () => {
    const started = await f.start('spin', { n: 0 });
    assert.equal(started.state, 'incident');
    const detail = await f.instance(started.id);
    assert.match(JSON.stringify(detail.incidents), /step|loop/i);
  });

  test('variables can be set on a running instance and the change is in the history', async () => {
    const started = await f.start('payment', { amount: 5 });
    const updated = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${started.id}/variables`,
      token: f.tokens.operator,
      body: { variables: { amount: 6, note: 'corrected' } },
    });
    assert.equal(updated.statusCode, 200);
    assert.deepEqual((updated.json() as { variables: unknown }).variables, { amount: 6, note: 'corrected' });
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${started.id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string }[];
    assert.ok(history.some((entry) => entry.kind === 'variablesUpdated'));
  });

  test('the list follows the spec: org scope, filters, newest first, limit clamped to 1..500, X-Total-Count', async () => {
    const list = async (query: string) =>
      f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances?org_id=${f.orgId}${query}`,
        token: f.tokens.reader,
      });
    const all = await list('');
    assert.equal(all.statusCode, 200);
    const total = Number(all.headers['x-total-count']);
    const items = all.json() as { started_at: string; process_key: string; state: string }[];
    assert.equal(items.length, Math.min(total, 100));
    assert.ok(items.every((item, i) => i === 0 || (items[i - 1]?.started_at ?? '') >= item.started_at));
    assert.equal((await list('&limit=0')).json<unknown[]>().length, 1, 'limit 0 is clamped to 1');
    assert.equal((await list('&limit=100000')).json<unknown[]>().length, Math.min(total, 500));
    assert.equal((await list('&offset=-1')).statusCode, 400);
    const pricing = await list('&process_key=pricing&state=completed');
    assert.ok((pricing.json() as { process_key: string }[]).every((item) => item.process_key === 'pricing'));
    const past = await list(`&offset=${total + 5}`);
    assert.deepEqual(past.json(), []);
    assert.equal(Number(past.headers['x-total-count']), total);
    assert.equal(
      (
        await f.workflow.request({
          method: 'GET',
          url: `/api/v1/process-instances?org_id=${f.orgId}`,
          token: f.tokens.outsider,
        })
      ).statusCode,
      403,
    );
    assert.equal(
      (await f.workflow.request({ method: 'GET', url: '/api/v1/process-instances', token: f.tokens.reader }))
        .statusCode,
      400,
    );
  });

  test('unknown ids and bad bodies are 4xx', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const cases = [
      { method: 'GET', url: `/api/v1/process-instances/${unknown}`, token: f.tokens.reader, expect: 404 },
      {
        method: 'POST',
        url: `/api/v1/external-tasks/${unknown}/complete`,
        body: { worker_id: 'w' },
        expect: 404,
      },
      {
        method: 'POST',
        url: `/api/v1/tasks/${unknown}/complete`,
        token: f.tokens.operator,
        body: {},
        expect: 404,
      },
      {
        method: 'POST',
        url: '/api/v1/process-instances',
        token: f.tokens.operator,
        body: { org_id: f.orgId },
        expect: 400,
      },
      {
        method: 'POST',
        url: '/api/v1/process-instances',
        token: f.tokens.operator,
        body: { org_id: f.orgId, process_key: 'payment', variables: [1] },
        expect: 400,
      },
      {
        method: 'POST',
        url: '/api/v1/external-tasks/fetch-and-lock',
        body: { worker_id: 'w', max_tasks: 0, topics: [] },
        expect: 400,
      },
      {
        method: 'POST',
        url: '/api/v1/external-tasks/not-a-uuid/complete',
        body: { worker_id: 'w' },
        expect: 400,
      },
    ];
    for (const { expect, ...request } of cases) {
      const response = await f.workflow.request(request);
      assert.equal(response.statusCode, expect, `${request.method} ${request.url}: ${response.body}`);
    }
  });
});
