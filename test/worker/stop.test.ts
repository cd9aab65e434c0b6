import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ExternalTaskWorker } from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { delay, waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('stop() waits for a running handler to settle its task, and fetches nothing more', async () => {
  const first = api.addTask('work');
  let finished = false;
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, concurrency: 1 });
  worker.subscribe('work', async () => {
    await delay(300);
    finished = true;
    return { ok: true };
  });
  worker.start();
  await waitFor('the handler to start', () => worker.running === 1);
  const second = api.addTask('work');
  const result = await worker.stop();

  assert.ok(finished);
  assert.deepEqual(result, { timedOut: false, unfinished: 0 });
  assert.equal(api.task(first).state, 'completed');
  assert.equal(api.task(second).state, 'open');
  assert.equal(api.task(second).lockedBy, undefined);
  assert.equal(worker.started, false);
});

test('stop() abandons a long poll at once', async () => {
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, asyncResponseTimeoutMs: 10_000 });
  worker.subscribe('idle', () => {});
  worker.start();
  await waitFor('the long poll', () => api.requests.length === 1);
  const startedAt = Date.now();
  await worker.stop();
  assert.ok(Date.now() - startedAt < 500, `stop took ${Date.now() - startedAt} ms`);
});

test('stop() gives up after its timeout and aborts the handler signal', async () => {
  api.addTask('stuck');
  let reason: unknown;
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  worker.subscribe('stuck', (_task, actions) => {
    actions.signal.addEventListener('abort', () => {
      reason = actions.signal.reason as unknown;
    });
    return new Promise(() => {});
  });
  worker.start();
  await waitFor('the handler to start', () => worker.running === 1);
  const result = await worker.stop({ timeoutMs: 100 });
  assert.deepEqual(result, { timedOut: true, unfinished: 1 });
  assert.match(String(reason), /stopped before the handler finished/);
});

test('a stopped worker can start again; a second start() while running throws', async () => {
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, asyncResponseTimeoutMs: 50 });
  worker.subscribe('again', () => {});
  worker.start();
  assert.throws(() => worker.start(), /already started/);
  await worker.stop();
  const id = api.addTask('again');
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  await worker.stop();
});
