import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ExternalTaskWorker, type WorkerEvents } from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { delay, waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('the lock of a handler slower than it is extended until the handler finishes', async () => {
  const id = api.addTask('long');
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'w-lock' });
  let calls = 0;
  worker.subscribe(
    'long',
    () => {
      calls++;
      return delay(900);
    },
    { lockDurationMs: 300 },
  );
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  const completedAt = api.requestsTo('POST', /complete$/)[0]?.at ?? 0;
  await delay(250);
  await worker.stop();

  assert.equal(calls, 1);
  const extensions = api.requestsTo('PATCH', new RegExp(`${id}/lock$`));
  assert.ok(extensions.length >= 3, `900 ms at one extension per 150 ms, got ${extensions.length}`);
  assert.deepEqual(extensions[0]?.body, { worker_id: 'w-lock', new_duration_ms: 300 });
  assert.ok(
    extensions.every((request) => request.at <= completedAt),
    'no extension after the report',
  );
});

test('without automatic extension the same handler loses its lock and its completion is refused', async () => {
  const id = api.addTask('long');
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, autoExtendLock: false, concurrency: 1 });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('long', () => delay(400), { lockDurationMs: 100 });
  worker.start();
  await waitFor('the refusal', () => errors.some((event) => event.phase === 'complete'));
  await worker.stop();
  assert.equal(api.requestsTo('PATCH', /lock$/).length, 0);
  assert.notEqual(api.task(id).state, 'completed');
});

test('actions.extendLock sets the duration, and later automatic extensions keep it', async () => {
  const id = api.addTask('manual');
  const extended: WorkerEvents['task:lock-extended'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'w-manual' });
  worker.on('task:lock-extended', (event) => extended.push(event));
  worker.subscribe(
    'manual',
    async (_task, actions) => {
      await actions.extendLock(300);
      await delay(400);
    },
    { lockDurationMs: 5000 },
  );
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  await worker.stop();
  const durations = api
    .requestsTo('PATCH', /lock$/)
    .map((r) => (r.body as { new_duration_ms: number }).new_duration_ms);
  // One extension by the handler, then automatic ones every 150 ms of its 400.
  assert.ok(durations.length >= 2, `extensions: ${durations.length}`);
  assert.ok(
    durations.every((ms) => ms === 300),
    `durations: ${durations.join(',')}`,
  );
  assert.deepEqual(
    extended.map((event) => event.automatic),
    [false, ...durations.slice(1).map(() => true)],
  );
});

test('a refused extension aborts the handler signal', async () => {
  const id = api.addTask('lost');
  api.intercept = (request) =>
    request.method === 'PATCH' ? { status: 409, body: { code: 'U409', message: 'taken' } } : undefined;
  let aborted: unknown;
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  worker.subscribe(
    'lost',
    (_task, actions) =>
      new Promise<void>((resolve) =>
        actions.signal.addEventListener('abort', () => {
          aborted = actions.signal.reason;
          resolve();
        }),
      ),
    { lockDurationMs: 100 },
  );
  worker.start();
  await waitFor('the abort', () => aborted !== undefined);
  await worker.stop();
  assert.match(String(aborted), new RegExp(`lock of task ${id} was lost`));
  assert.equal(api.requestsTo('PATCH', /lock$/).length, 1);
});

test('a task the poll takes again while its handler still runs is not handed to a second handler', async () => {
  const id = api.addTask('expires');
  let calls = 0;
  let finished = false;
  const polls: number[] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, autoExtendLock: false, pollIntervalMs: 10 });
  worker.subscribe(
    'expires',
    () => {
      calls++;
      return delay(400).then(() => {
        finished = true;
      });
    },
    { lockDurationMs: 50 },
  );
  worker.on('poll', ({ received }) => polls.push(received));
  worker.start();
  await waitFor('the handler', () => finished);
  await worker.stop();
  // Its completion may meet an expired lock: what matters is that one handler ran.
  assert.ok(polls.filter((received) => received === 1).length >= 2, `tasks per poll: ${polls.join(',')}`);
  assert.equal(api.task(id).lockedBy, worker.workerId);
  assert.equal(calls, 1);
});
