import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import {
  ExternalTaskApiError,
  ExternalTaskWorker,
  MAX_ERROR_MESSAGE_LENGTH,
  type WorkerEvents,
} from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('a throwing handler reports a failure with one retry less, the retry timeout, and no stack', async () => {
  const id = api.addTask('flaky', {}, 3);
  const failed: WorkerEvents['task:failed'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'w-fail' });
  worker.on('task:failed', (event) => failed.push(event));
  const thrown = new Error('card declined');
  worker.subscribe(
    'flaky',
    () => {
      throw thrown;
    },
    { retryTimeoutMs: 5000 },
  );
  worker.start();
  await waitFor('the failure', () => failed.length === 1);
  await worker.stop();

  const [failure] = api.requestsTo('POST', /failure$/);
  assert.equal(failure?.path, `/api/v1/external-tasks/${id}/failure`);
  assert.deepEqual(failure?.body, {
    worker_id: 'w-fail',
    error_message: 'card declined',
    retries: 2,
    retry_timeout_ms: 5000,
  });
  assert.equal(api.task(id).retries, 2);
  assert.equal(failed[0]?.error, thrown);
  assert.equal(failed[0]?.retries, 2);
});

test('retries go down to 0, which raises the incident, and the backoff function sees each failure', async () => {
  const id = api.addTask('always-fails', {}, 2);
  const seen: number[] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, pollIntervalMs: 10 });
  worker.subscribe('always-fails', () => Promise.reject(new Error('x'.repeat(5000))), {
    retryTimeoutMs: ({ retries }) => {
      seen.push(retries);
      return retries === 0 ? 0 : 20;
    },
  });
  worker.start();
  await waitFor('the incident', () => api.task(id).state === 'incident');
  await worker.stop();

  const bodies = api.requestsTo('POST', /failure$/).map((request) => request.body as Record<string, unknown>);
  assert.deepEqual(
    bodies.map((body) => [body.retries, body.retry_timeout_ms]),
    [
      [1, 20],
      [0, 0],
    ],
  );
  assert.deepEqual(seen, [1, 0]);
  const message = String(bodies[0]?.error_message);
  assert.equal(message.length, MAX_ERROR_MESSAGE_LENGTH);
  assert.ok(message.endsWith('…'));
});

test('`maxRetries` bounds the retries a failure reports', async () => {
  api.addTask('bounded', {}, 10);
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  worker.subscribe(
    'bounded',
    () => {
      throw new Error('no');
    },
    { maxRetries: 4 },
  );
  worker.start();
  await waitFor('the failure', () => api.requestsTo('POST', /failure$/).length === 1);
  await worker.stop();
  assert.equal((api.requestsTo('POST', /failure$/)[0]?.body as { retries: number }).retries, 3);
});

test('actions.fail sends what the handler chose', async () => {
  api.addTask('explicit', {}, 5);
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'w-explicit' });
  worker.subscribe('explicit', (_task, actions) =>
    actions.fail({ errorMessage: 'upstream down', retries: 0, retryTimeoutMs: 1 }),
  );
  worker.start();
  await waitFor('the failure', () => api.requestsTo('POST', /failure$/).length === 1);
  await worker.stop();
  assert.deepEqual(api.requestsTo('POST', /failure$/)[0]?.body, {
    worker_id: 'w-explicit',
    error_message: 'upstream down',
    retries: 0,
    retry_timeout_ms: 1,
  });
});

test('actions.bpmnError sends the error code and variables', async () => {
  const id = api.addTask('validate');
  const events: string[] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'w-bpmn' });
  worker.on('task:bpmn-error', ({ errorCode }) => events.push(errorCode));
  worker.subscribe('validate', async (_task, actions) => {
    await actions.bpmnError('INVALID_ADDRESS', { reason: 'no street' });
  });
  worker.start();
  await waitFor('the BPMN error', () => api.task(id).state === 'bpmn-error');
  await worker.stop();
  assert.deepEqual(api.requestsTo('POST', /bpmn-error$/)[0]?.body, {
    worker_id: 'w-bpmn',
    error_code: 'INVALID_ADDRESS',
    variables: { reason: 'no street' },
  });
  assert.deepEqual(events, ['INVALID_ADDRESS']);
  assert.equal(api.requestsTo('POST', /complete$|failure$/).length, 0);
});

test('a 409 on complete becomes an error event, and the worker goes on with the next task', async () => {
  const lost = api.addTask('contested');
  api.intercept = (request) =>
    request.path.endsWith(`${lost}/complete`)
      ? { status: 409, body: { code: 'U409', message: 'locked by another worker' } }
      : undefined;
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, pollIntervalMs: 10 });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('contested', () => ({ done: true }));
  worker.start();
  await waitFor('the error event', () => errors.length === 1);
  const next = api.addTask('contested');
  await waitFor('the next completion', () => api.task(next).state === 'completed');
  await worker.stop();

  const [event] = errors;
  assert.equal(event?.phase, 'complete');
  assert.equal(event?.task?.id, lost);
  assert.ok(event?.error instanceof ExternalTaskApiError);
  assert.equal(event.error.status, 409);
  assert.equal(event.error.code, 'U409');
  assert.equal(event.error.message, 'locked by another worker');
  // A conflict is final: it is not sent again.
  assert.equal(api.requestsTo('POST', new RegExp(`${lost}/complete$`)).length, 1);
});

test('a handler that awaits a refused action and rethrows yields one error event, not a failure', async () => {
  const id = api.addTask('rethrows');
  api.intercept = (request) =>
    request.path.endsWith('/complete')
      ? { status: 409, body: { code: 'U409', message: 'expired' } }
      : undefined;
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('rethrows', async (_task, actions) => {
    await actions.complete();
  });
  worker.start();
  await waitFor('the error event', () => errors.length > 0);
  await worker.stop();
  assert.deepEqual(
    errors.map((event) => [event.phase, event.task?.id]),
    [['complete', id]],
  );
  assert.equal(api.requestsTo('POST', /failure$/).length, 0);
});

test('a report the engine does not answer is sent again, a few times', async () => {
  const id = api.addTask('retry-report');
  let refusals = 0;
  api.intercept = (request) =>
    request.path.endsWith('/complete') && refusals++ < 2
      ? { status: 503, body: { code: 'U503', message: 'db' } }
      : undefined;
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, backoff: { initialMs: 10, maxMs: 20 } });
  worker.subscribe('retry-report', () => ({}));
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  await worker.stop();
  assert.equal(api.requestsTo('POST', /complete$/).length, 3);
});
