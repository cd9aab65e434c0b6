import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ExternalTaskWorker, type WorkerEvents, type WorkerLogger } from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

/** A logger that keeps every call as one JSON line. */
function recordingLogger(): WorkerLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push(JSON.stringify({ level, message, fields }));
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

test('the logger hears of polls, completions and failures, but never of variables or the token', async () => {
  const ok = api.addTask('logged', { secret: 'variable-value-1' });
  const bad = api.addTask('logged-failing', { secret: 'variable-value-2' });
  const logger = recordingLogger();
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, token: 'token-value', logger });
  worker.subscribe('logged', () => ({ out: 'variable-value-3' }));
  worker.subscribe('logged-failing', () => {
    throw new Error('it broke');
  });
  worker.start();
  await waitFor(
    'both reports',
    () => api.task(ok).state === 'completed' && api.task(bad).outcome !== undefined,
  );
  await worker.stop();

  const text = logger.lines.join('\n');
  assert.match(text, /"level":"debug","message":"external task worker: poll"/);
  assert.match(
    text,
    new RegExp(`"level":"debug","message":"external task worker: task:completed".*"taskId":"${ok}"`),
  );
  assert.match(text, /"level":"warn","message":"external task failed: it broke"/);
  assert.doesNotMatch(text, /variable-value|token-value/);
});

test('a listener that throws is reported as an error event and does not stop the worker', async () => {
  const id = api.addTask('listened');
  const errors: WorkerEvents['error'][] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  worker.on('task:started', () => {
    throw new Error('listener bug');
  });
  worker.on('error', (event) => errors.push(event));
  worker.subscribe('listened', () => {});
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  await worker.stop();
  assert.deepEqual(
    errors.map((event) => [event.phase, (event.error as Error).message]),
    [['listener', 'listener bug']],
  );
});

test('options are checked when the worker is made', () => {
  assert.throws(() => new ExternalTaskWorker({ baseUrl: 'localhost:8080' }), /baseUrl/);
  assert.throws(() => new ExternalTaskWorker({ baseUrl: api.baseUrl, concurrency: 0 }), /concurrency/);
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl });
  assert.match(worker.workerId, /^.+-\d+-[0-9a-f]{8}$/);
  worker.subscribe('once', () => {});
  assert.throws(() => worker.subscribe('once', () => {}), /already has a handler/);
});
