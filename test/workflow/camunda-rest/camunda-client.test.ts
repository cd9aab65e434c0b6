import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BasicAuthInterceptor, Client, Variables, type Task } from 'camunda-external-task-client-js';
import { createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';

// Camunda's own JavaScript client, unmodified, against a running weft: it subscribes to `charge`,
// reads typed variables, completes with typed variables, fails and retries, throws a BPMN error
// that a boundary event catches, and extends a lock.

let fixture: CamundaFixture;
let baseUrl: string;
before(async () => {
  fixture = await createCamundaFixture();
  const address = await fixture.workflow.service.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `${address}/engine-rest`;
});
after(() => fixture.close());

async function waitUntil(what: string, condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('camunda-external-task-client-js works against /engine-rest unchanged', async () => {
  const { worker } = fixture.users;
  const client = new Client({
    baseUrl,
    workerId: 'camunda-js',
    maxTasks: 4,
    interval: 50,
    lockDuration: 5_000,
    asyncResponseTimeout: 1_000,
    autoPoll: false,
    interceptors: new BasicAuthInterceptor({ username: worker.email, password: worker.password }),
  });
  const seen: Record<string, { type: string | undefined; value: unknown }[]> = {};
  const attempts: Record<string, number> = {};
  const lockSeen: Record<string, number> = {};
  const clientErrors: unknown[] = [];
  for (const event of [
    'poll:error',
    'complete:error',
    'handleFailure:error',
    'handleBpmnError:error',
    'extendLock:error',
  ])
    client.on(event, (error) => clientErrors.push([event, error]));

  client.subscribe('charge', {}, async ({ task, taskService }) => {
    const key = task.businessKey ?? '';
    attempts[key] = (attempts[key] ?? 0) + 1;
    switch (key) {
      case 'complete': {
        seen[key] = ['orderId', 'amount', 'customer', 'orderedAt'].map((name) => ({
          type: task.variables.getTyped(name)?.type,
          value: task.variables.get(name),
        }));
        const result = new Variables()
          .set('receipt', 'r-1')
          .set('paidAt', new Date('2024-03-04T10:11:12.000Z'))
          .set('fee', 0.5)
          .set('count', 2)
          .set('total', 2 ** 40)
          .set('items', [{ sku: 'A' }]);
        await taskService.complete(task, result);
        return;
      }
      case 'retry':
        if (attempts[key] === 1) {
          await taskService.handleFailure(task, {
            errorMessage: 'card service down',
            errorDetails: 'a stack trace',
            retries: 1,
            retryTimeout: 100,
          });
          return;
        }
        await taskService.complete(
          task,
          new Variables().set('attempt', attempts[key]).set('retriesSeen', task.retries),
        );
        return;
      case 'declined':
        await taskService.handleBpmnError(
          task,
          'DECLINED',
          'insufficient funds',
          new Variables().set('reason', 'funds'),
        );
        return;
      case 'slow':
        await taskService.extendLock(task, 60_000);
        lockSeen[key] = await lockExpiresIn(task);
        await taskService.complete(task);
        return;
      default:
        throw new Error(`unexpected task ${task.id} with business key ${key}`);
    }
  });

  const ids = {
    complete: await fixture.start(
      {
        orderId: 'o-1',
        amount: 2 ** 40,
        customer: { name: 'Ada', tags: ['vip'] },
        orderedAt: '2024-03-01T08:00:00.000Z',
      },
      { businessKey: 'complete' },
    ),
    retry: await fixture.start({}, { businessKey: 'retry' }),
    declined: await fixture.start({}, { businessKey: 'declined' }),
    slow: await fixture.start({}, { businessKey: 'slow' }),
  };
  client.start();
  try {
    await waitUntil('every instance to complete', async () => {
      for (const id of Object.values(ids))
        if ((await fixture.instance(id)).state !== 'completed') return false;
      return true;
    });
  } finally {
    client.stop();
  }

  assert.deepEqual(clientErrors, []);
  assert.deepEqual(seen.complete, [
    // The client gives types in lower case.
    { type: 'string', value: 'o-1' },
    { type: 'long', value: 2 ** 40 },
    { type: 'json', value: { name: 'Ada', tags: ['vip'] } },
    // weft keeps dates as ISO 8601 text: they come back as String (docs/workflow/camunda7.md).
    { type: 'string', value: '2024-03-01T08:00:00.000Z' },
  ]);
  const completed = await fixture.instance(ids.complete);
  assert.deepEqual(completed.variables, {
    orderId: 'o-1',
    amount: 2 ** 40,
    customer: { name: 'Ada', tags: ['vip'] },
    orderedAt: '2024-03-01T08:00:00.000Z',
    receipt: 'r-1',
    paidAt: '2024-03-04T10:11:12.000Z',
    fee: 0.5,
    count: 2,
    total: 2 ** 40,
    items: [{ sku: 'A' }],
  });
  assert.equal(attempts.retry, 2);
  assert.deepEqual((await fixture.instance(ids.retry)).variables, { attempt: 2, retriesSeen: 1 });
  const declined = await fixture.instance(ids.declined);
  // The boundary event keeps the client's error code and message (camunda:errorCodeVariable, …).
  assert.deepEqual(declined.variables, {
    reason: 'funds',
    declineCode: 'DECLINED',
    declineMessage: 'insufficient funds',
  });
  assert.deepEqual(declined.incidents, []);
  assert.ok((lockSeen.slow ?? 0) > 50_000, `lock extended to ${lockSeen.slow} ms from now`);
  assert.equal(attempts.slow, 1);
});

// How long the task's lock still runs, as GET /engine-rest/external-task/{id} shows it.
async function lockExpiresIn(task: Task): Promise<number> {
  const response = await fixture.camunda({ method: 'GET', url: `/engine-rest/external-task/${task.id}` });
  const { lockExpirationTime } = response.json() as { lockExpirationTime: string };
  return Date.parse(lockExpirationTime.replace(/\+0000$/, 'Z')) - Date.now();
}
