import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ExternalTaskWorker } from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { delay, waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('never runs more handlers than `concurrency`, and fetches only as many tasks as free slots', async () => {
  const ids = Array.from({ length: 10 }, (_, n) => api.addTask('slow', { n }));
  let inFlight = 0;
  let most = 0;
  const worker = new ExternalTaskWorker({
    baseUrl: api.baseUrl,
    workerId: 'bounded',
    concurrency: 3,
    maxTasks: 10,
    asyncResponseTimeoutMs: 1000,
  });
  worker.subscribe('slow', async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await delay(60);
    inFlight--;
  });
  worker.start();
  await waitFor('ten completions', () => ids.every((id) => api.task(id).state === 'completed'));
  await worker.stop();

  assert.equal(most, 3);
  const asked = api.requestsTo('POST', /fetch-and-lock$/).map((request) => {
    return (request.body as { max_tasks: number }).max_tasks;
  });
  assert.ok(asked.length >= 4, `10 tasks in slots of 3 take at least 4 fetches, got ${asked.length}`);
  assert.ok(
    asked.every((max) => max >= 1 && max <= 3),
    `max_tasks stays within the free slots: ${asked.join(',')}`,
  );
});

test('`maxTasks` caps a fetch below the free slots', async () => {
  api.addTask('capped');
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, concurrency: 8, maxTasks: 2 });
  worker.subscribe('capped', () => {});
  worker.start();
  await waitFor('a fetch', () => api.requestsTo('POST', /fetch-and-lock$/).length > 0);
  await worker.stop();
  assert.equal((api.requestsTo('POST', /fetch-and-lock$/)[0]?.body as { max_tasks: number }).max_tasks, 2);
});

test('a worker with every slot busy does not poll until one frees', async () => {
  api.addTask('busy');
  api.addTask('busy');
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, concurrency: 1, asyncResponseTimeoutMs: 50 });
  worker.subscribe('busy', () => released);
  worker.start();
  await waitFor('the first task to start', () => worker.running === 1);
  const before = api.requestsTo('POST', /fetch-and-lock$/).length;
  await delay(300);
  assert.equal(api.requestsTo('POST', /fetch-and-lock$/).length, before);
  release();
  await waitFor('the second fetch', () => api.requestsTo('POST', /fetch-and-lock$/).length > before);
  await worker.stop();
});
