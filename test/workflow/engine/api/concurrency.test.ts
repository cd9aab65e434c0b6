import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

describe('the engine under concurrency', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    for (const fixture of ['payment.bpmn', 'parallel.bpmn', 'scripts-only.bpmn']) {
      assert.equal((await f.deploy(fixture)).statusCode, 201);
    }
  });
  after(() => f.close());

  test('200 concurrent starts of one key get the counters 1..200, gap-free', async () => {
    const started = await Promise.all(
      Array.from({ length: 200 }, () => f.start('pricing', { price: 1, quantity: 1 })),
    );
    const counters = started.map((instance) => instance.counter as number).sort((a, b) => a - b);
    assert.deepEqual(
      counters,
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
  });

  test('two workers fetching the same topic at once never receive the same task', async () => {
    await Promise.all(Array.from({ length: 40 }, () => f.start('payment', { amount: 1 })));
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => f.fetch(`racer-${i % 2}`, 'charge', 10)),
    );
    const ids = rounds.flat().map((task) => task.id);
    assert.ok(ids.length >= 40, `fetched ${ids.length}`);
    assert.equal(new Set(ids).size, ids.length, 'no task was handed out twice');
  });

  test('a parallel join under concurrent completions fires exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const instance = await f.start('fanout');
      const branches = (await f.fetch(`w${round}`, 'branch', 50)).filter(
        (t) => t.process_instance_id === instance.id,
      );
      assert.equal(branches.length, 3);
      const results = await Promise.all(
        branches.map((task) =>
          f.workflow.request({
            method: 'POST',
            url: `/api/v1/external-tasks/${task.id}/complete`,
            body: { worker_id: `w${round}` },
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.statusCode),
        [204, 204, 204],
      );
      const { rows } = await f.workflow.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM external_tasks WHERE process_instance_id = $1 AND topic = 'after'`,
        [instance.id],
      );
      assert.deepEqual(rows, [{ n: 1 }], 'the task after the join exists once');
      assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['after']);
    }
  });

  test('a long poll is woken by a new task through LISTEN/NOTIFY, well before its timeout', async () => {
    const topic = 'charge';
    // Drain what earlier tests left so the poll has to wait.
    while ((await f.fetch('drain', topic, 100)).length > 0);
    const started = Date.now();
    const polling = f.workflow.request({
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      body: {
        worker_id: 'long-poller',
        max_tasks: 1,
        topics: [{ topic_name: topic, lock_duration_ms: 10_000 }],
        async_response_timeout_ms: 20_000,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const instance = await f.start('payment', { amount: 9 });
    const response = await polling;
    const elapsed = Date.now() - started;
    const tasks = response.json() as { process_instance_id: string }[];
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0]?.process_instance_id, instance.id);
    assert.ok(elapsed < 5_000, `answered after ${elapsed} ms`);
  });

  test('a long poll with nothing to fetch answers an empty list after its timeout', async () => {
    const started = Date.now();
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/external-tasks/fetch-and-lock',
      body: {
        worker_id: 'idle',
        max_tasks: 1,
        topics: [{ topic_name: 'nothing-here', lock_duration_ms: 1000 }],
        async_response_timeout_ms: 600,
      },
    });
    assert.deepEqual(response.json(), []);
    assert.ok(Date.now() - started >= 550);
  });
});
