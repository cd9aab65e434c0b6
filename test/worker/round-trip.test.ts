import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { ExternalTaskWorker, type ExternalTask } from '../../src/worker/index.js';
import { FakeExternalTaskApi } from './fake-external-task-api.js';
import { waitFor } from './wait-for.js';

let api: FakeExternalTaskApi;
beforeEach(async () => (api = await new FakeExternalTaskApi().start()));
afterEach(() => api.close());

test('fetches with a long poll, hands the task over, and completes it with the exact bodies', async () => {
  const id = api.addTask('charge-card', { amount: 42 });
  const seen: ExternalTask[] = [];
  const worker = new ExternalTaskWorker({
    baseUrl: `${api.baseUrl}/`,
    workerId: 'worker-a',
    token: 'key-123',
    maxTasks: 4,
    concurrency: 2,
    asyncResponseTimeoutMs: 2000,
    lockDurationMs: 5000,
  });
  worker.subscribe('charge-card', async (task, actions) => {
    seen.push(task);
    await actions.complete({ charged: true });
  });
  worker.start();
  await waitFor('the completion', () => api.task(id).state === 'completed');
  await worker.stop();

  const [fetch] = api.requestsTo('POST', /fetch-and-lock$/);
  assert.deepEqual(fetch?.body, {
    worker_id: 'worker-a',
    max_tasks: 2,
    topics: [{ topic_name: 'charge-card', lock_duration_ms: 5000 }],
    async_response_timeout_ms: 2000,
  });
  assert.equal(fetch?.headers.authorization, 'Bearer key-123');
  const [complete] = api.requestsTo('POST', /complete$/);
  assert.equal(complete?.path, `/api/v1/external-tasks/${id}/complete`);
  assert.deepEqual(complete?.body, { worker_id: 'worker-a', variables: { charged: true } });
  assert.equal(complete?.headers['content-type'], 'application/json');

  assert.equal(seen.length, 1);
  const task = seen[0];
  assert.deepEqual(
    { ...task, lockExpiresAt: undefined },
    {
      id,
      topicName: 'charge-card',
      processInstanceId: `instance-of-${id}`,
      activityId: 'activity-charge-card',
      variables: { amount: 42 },
      retries: 3,
      lockExpiresAt: undefined,
      orgId: 'org-1',
    },
  );
  assert.ok(task?.lockExpiresAt instanceof Date && task.lockExpiresAt.getTime() > Date.now());
});

test('a handler that returns completes the task with the returned variables, or none', async () => {
  const withVariables = api.addTask('returns', { n: 1 });
  const without = api.addTask('returns-nothing');
  const completed: string[] = [];
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'worker-b' });
  worker.on('task:completed', ({ task }) => completed.push(task.id));
  worker.subscribe<{ n: number }, { doubled: number }>('returns', (task) => ({
    doubled: task.variables.n * 2,
  }));
  worker.subscribe('returns-nothing', async () => {});
  worker.start();
  await waitFor('both completions', () => completed.length === 2);
  await worker.stop();

  assert.deepEqual(api.task(withVariables).outcome, { variables: { doubled: 2 } });
  assert.deepEqual(api.task(without).outcome, { variables: undefined });
  const bodies = api.requestsTo('POST', /complete$/).map((request) => request.body);
  assert.deepEqual(
    bodies.find((body) => !JSON.stringify(body).includes('doubled')),
    { worker_id: 'worker-b' },
  );
  assert.equal(api.requestsTo('POST', /fetch-and-lock$/)[0]?.headers.authorization, undefined);
});

test('a handler that returns something other than a variables object reports a failure', async () => {
  const id = api.addTask('returns-array');
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'worker-c' });
  worker.subscribe('returns-array', () => [1, 2] as unknown as Record<string, unknown>);
  worker.start();
  await waitFor('the failure', () => api.task(id).outcome !== undefined);
  await worker.stop();
  assert.match(String(api.task(id).outcome?.error_message), /variables object/);
  assert.equal(api.task(id).retries, 2);
});

test('settling twice is refused, and the return value after an action is ignored', async () => {
  const id = api.addTask('twice');
  let second: unknown;
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'worker-d' });
  worker.subscribe('twice', async (_task, actions) => {
    await actions.complete({ first: true });
    second = await actions.fail({ errorMessage: 'late' }).catch((error: unknown) => error);
    return { ignored: true };
  });
  worker.start();
  await waitFor('the completion', () => second !== undefined);
  await worker.stop();
  assert.match(String(second), /already settled \(complete\)/);
  assert.deepEqual(api.task(id).outcome, { variables: { first: true } });
  assert.equal(api.requestsTo('POST', /complete$|failure$/).length, 1);
});

test('a subscription ended before its tasks arrive gives them back unlocked', async () => {
  const id = api.addTask('dropped');
  const worker = new ExternalTaskWorker({ baseUrl: api.baseUrl, workerId: 'worker-e' });
  let calls = 0;
  const unsubscribe = worker.subscribe('dropped', () => {
    calls++;
  });
  const unlocked: string[] = [];
  worker.on('task:unlocked', ({ task }) => unlocked.push(task.id));
  worker.start();
  // The poll is out with the topic in it when the subscription ends.
  unsubscribe();
  await waitFor('the unlock', () => unlocked.length === 1);
  await worker.stop();
  assert.equal(calls, 0);
  assert.equal(api.task(id).lockedBy, undefined);
  assert.equal(api.requestsTo('DELETE', new RegExp(`${id}/lock$`)).length, 1);
});
