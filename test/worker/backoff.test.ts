import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { freePort } from '../helpers/ports.js';
import {
  backoffDelay,
  ExternalTaskApiError,
  ExternalTaskNetworkError,
  ExternalTaskWorker,
  type WorkerEvents,
} from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { delay } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('backoffDelay doubles from initialMs up to maxMs, jittered between half and all of it', () => {
  const low = () => 0;
  const high = () => 1;
  const options = { initialMs: 100, maxMs: 1000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 50].map((n) => backoffDelay(n, options, low)),
    [50, 100, 200, 400, 500, 500],
  );
  assert.deepEqual(
    [1, 2, 3, 4, 5, 50].map((n) => backoffDelay(n, options, high)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test('polls answered with 500 back off instead of looping', async () => {
  api.addTask('never');
  api.intercept = (request) =>
    request.path.endsWith('fetch-and-lock')
      ? { status: 500, body: { code: 'U500', message: 'bug' } }
      : undefined;
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, backoff: { initialMs: 100, maxMs: 400 } });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('never', () => {});
  worker.start();
  await delay(1000);
  await worker.stop();

  // Delays of at least 50, 100, 200, 200… ms: at most 6 polls fit in a second.
  const polls = api.requestsTo('POST', /fetch-and-lock$/).length;
  assert.ok(polls >= 3 && polls <= 6, `polls in one second: ${polls}`);
  // The poll out when stop() came is abandoned without an error.
  assert.ok(
    errors.length === polls || errors.length === polls - 1,
    `${errors.length} errors, ${polls} polls`,
  );
  assert.ok(errors.every((event) => event.phase === 'poll' && event.error instanceof ExternalTaskApiError));
  const waits = errors.map((event) => event.retryInMs ?? 0);
  assert.ok(waits[2]! > waits[0]!, `the wait grows: ${waits.join(',')}`);
});

test('a Retry-After header is honoured when longer than the backoff', async () => {
  api.intercept = () => ({
    status: 429,
    body: { code: 'U429', message: 'slow down' },
    headers: { 'retry-after': '1' },
  });
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, backoff: { initialMs: 10, maxMs: 10 } });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('any', () => {});
  worker.start();
  await delay(500);
  await worker.stop();
  assert.equal(api.requests.length, 1);
  assert.equal(errors[0]?.retryInMs, 1000);
});

test('a refused connection backs off too, and stop() ends the wait at once', async () => {
  const port = await freePort();
  let calls = 0;
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({
    baseUrl: `http://127.0.0.1:${port}`,
    backoff: { initialMs: 100, maxMs: 400 },
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
  });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('nobody-home', () => {});
  worker.start();
  await delay(1000);
  const stoppedAt = Date.now();
  await worker.stop();

  assert.ok(Date.now() - stoppedAt < 100, 'stop does not wait out the backoff');
  assert.ok(calls >= 3 && calls <= 6, `connection attempts in one second: ${calls}`);
  assert.ok(errors.every((event) => event.error instanceof ExternalTaskNetworkError));
  assert.match(String((errors[0]?.error as Error).message), /fetch-and-lock/);
});

test('empty answers without long polling wait `pollIntervalMs` between polls', async () => {
  const worker = new ExternalTaskWorker({
    baseUrl: api.baseUrl,
    asyncResponseTimeoutMs: 0,
    pollIntervalMs: 200,
  });
  worker.subscribe('quiet', () => {});
  worker.start();
  await delay(700);
  await worker.stop();
  const polls = api.requestsTo('POST', /fetch-and-lock$/);
  assert.ok(polls.length >= 3 && polls.length <= 4, `polls in 700 ms: ${polls.length}`);
  assert.equal((polls[0]?.body as Record<string, unknown>).async_response_timeout_ms, undefined);
});
