import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';

interface LockedTask {
  id: string;
  topicName: string;
  workerId: string;
  activityId: string;
  activityInstanceId: string;
  processInstanceId: string;
  processDefinitionKey: string;
  processDefinitionId: string;
  tenantId: string;
  businessKey: string | null;
  lockExpirationTime: string;
  retries: number;
  priority: number;
  errorMessage: string | null;
  variables: Record<string, { type: string; value: unknown; valueInfo: object }>;
  extensionProperties: Record<string, string>;
}

const camundaDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

describe('/engine-rest/external-task', () => {
  let fixture: CamundaFixture;
  before(async () => {
    fixture = await createCamundaFixture();
  });
  after(() => fixture.close());
  // Each test starts from no open tasks: what an earlier test left is unlocked and completed.
  beforeEach(async () => {
    const open = (await get('/external-task?maxResults=1000', fixture.admin)).json() as { id: string }[];
    for (const task of open) await post(`/external-task/${task.id}/unlock`, undefined, fixture.admin);
    for (;;) {
      const left = await fetchAndLock(
        { workerId: 'sweeper', maxTasks: 100, topics: [topic()] },
        fixture.admin,
      );
      if (left.length === 0) break;
      for (const task of left)
        await post(`/external-task/${task.id}/complete`, { workerId: 'sweeper' }, fixture.admin);
    }
  });

  const post = (path: string, body: unknown, token = fixture.users.worker.jwt) =>
    fixture.camunda({ method: 'POST', url: `/engine-rest${path}`, body, authorization: `Bearer ${token}` });
  const get = (path: string, token = fixture.users.worker.jwt) =>
    fixture.camunda({ method: 'GET', url: `/engine-rest${path}`, authorization: `Bearer ${token}` });
  const topic = (extra: Record<string, unknown> = {}) => ({
    topicName: 'charge',
    lockDuration: 60_000,
    ...extra,
  });
  const fetchAndLock = async (body: Record<string, unknown>, token?: string): Promise<LockedTask[]> => {
    const response = await post('/external-task/fetchAndLock', body, token);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json');
    return response.json() as LockedTask[];
  };
  const assertCamundaError = (
    response: { statusCode: number; json(): unknown },
    status: number,
    type: string,
    message?: RegExp,
  ) => {
    assert.equal(response.statusCode, status, JSON.stringify(response.json()));
    const body = response.json() as { type: string; message: string };
    assert.deepEqual(Object.keys(body).sort(), ['message', 'type']);
    assert.equal(body.type, type);
    if (message) assert.match(body.message, message);
  };

  test('fetchAndLock answers LockedExternalTaskDto with typed variables and extension properties', async () => {
    const instanceId = await fixture.start(
      { amount: 12.5, count: 3, big: 2 ** 40, name: 'Ada', card: { last4: '4242' }, none: null },
      { businessKey: 'order-1' },
    );
    const [task] = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 5,
      usePriority: true,
      topics: [topic({ includeExtensionProperties: true })],
    });
    assert.ok(task);
    assert.equal(task.topicName, 'charge');
    assert.equal(task.workerId, 'w1');
    assert.equal(task.activityId, 'charge');
    assert.equal(task.activityInstanceId, `charge:${task.id}`);
    assert.equal(task.processInstanceId, instanceId);
    assert.equal(task.processDefinitionKey, 'charge-card');
    assert.match(task.processDefinitionId, /^[0-9a-f-]{36}$/);
    assert.equal(task.tenantId, 'acme');
    assert.equal(task.businessKey, 'order-1');
    assert.equal(task.priority, 0);
    assert.equal(task.retries, 3);
    assert.match(task.lockExpirationTime, camundaDate);
    assert.deepEqual(task.extensionProperties, { channel: 'card' });
    assert.deepEqual(task.variables, {
      amount: { type: 'Double', value: 12.5, valueInfo: {} },
      count: { type: 'Integer', value: 3, valueInfo: {} },
      big: { type: 'Long', value: 2 ** 40, valueInfo: {} },
      name: { type: 'String', value: 'Ada', valueInfo: {} },
      card: { type: 'Json', value: '{"last4":"4242"}', valueInfo: {} },
      none: { type: 'Null', value: null, valueInfo: {} },
    });
  });

  test('fetchAndLock returns only the variables a topic names', async () => {
    await fixture.start({ a: 1, b: 2, c: 3 });
    const [task] = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 1,
      topics: [topic({ variables: ['a', 'c'] })],
    });
    assert.deepEqual(Object.keys(task?.variables ?? {}).sort(), ['a', 'c']);
  });

  test('fetchAndLock filters by business key, definition key, process variables and tenant', async () => {
    const keyed = await fixture.start({ region: 'eu' }, { businessKey: 'wanted' });
    await fixture.start({ region: 'us' }, { businessKey: 'other' });
    const byKey = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 10,
      topics: [topic({ businessKey: 'wanted' })],
    });
    assert.deepEqual(
      byKey.map((task) => task.processInstanceId),
      [keyed],
    );
    const byVariables = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 10,
      topics: [topic({ processVariables: { region: 'us' } })],
    });
    assert.equal(byVariables.length, 1);
    assert.equal(byVariables[0]?.businessKey, 'other');
    const beta = await fixture.start({}, { org: 'beta' });
    const noSuchKey = await fetchAndLock(
      { workerId: 'w2', maxTasks: 10, topics: [topic({ processDefinitionKey: 'not-deployed' })] },
      fixture.users.both.jwt,
    );
    assert.deepEqual(noSuchKey, []);
    const inBeta = await fetchAndLock(
      {
        workerId: 'w2',
        maxTasks: 10,
        topics: [topic({ tenantIdIn: ['beta'], processDefinitionKeyIn: ['charge-card'] })],
      },
      fixture.users.both.jwt,
    );
    assert.deepEqual(
      inBeta.map((task) => [task.processInstanceId, task.tenantId]),
      [[beta, 'beta']],
    );
    const without = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 10,
      topics: [topic({ withoutTenantId: true })],
    });
    assert.deepEqual(without, []);
  });

  test('a worker sees only the tasks of its orgs, and a tenant outside them is a 400', async () => {
    await fixture.start({}, { org: 'beta' });
    assert.deepEqual(await fetchAndLock({ workerId: 'w1', maxTasks: 10, topics: [topic()] }), []);
    const refused = await post('/external-task/fetchAndLock', {
      workerId: 'w1',
      maxTasks: 10,
      topics: [topic({ tenantIdIn: ['beta'] })],
    });
    assertCamundaError(refused, 400, 'InvalidRequestException', /Unknown tenant id 'beta'/);
    const reader = await post(
      '/external-task/fetchAndLock',
      { workerId: 'r', maxTasks: 1, topics: [topic()] },
      fixture.users.reader.jwt,
    );
    assertCamundaError(reader, 403, 'AuthorizationException');
  });

  test('a long poll waits for a task and answers it when it is started', async () => {
    const polled = post('/external-task/fetchAndLock', {
      workerId: 'w1',
      maxTasks: 1,
      asyncResponseTimeout: 10_000,
      topics: [topic()],
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const instanceId = await fixture.start({});
    const response = await polled;
    assert.equal(response.statusCode, 200);
    assert.equal((response.json() as LockedTask[])[0]?.processInstanceId, instanceId);
  });

  test('a long poll with nothing to fetch answers [] after its timeout', async () => {
    const started = Date.now();
    const tasks = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 1,
      asyncResponseTimeout: 300,
      topics: [topic()],
    });
    assert.deepEqual(tasks, []);
    assert.ok(Date.now() - started >= 250);
  });

  test('complete with typed variables moves the instance on and stores them as JSON', async () => {
    const instanceId = await fixture.start({});
    const [task] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    const response = await post(`/external-task/${task?.id}/complete`, {
      workerId: 'w1',
      variables: {
        receipt: { value: 'r-1', type: 'String' },
        paidAt: { value: '2024-03-04T10:11:12.000+0100', type: 'Date' },
        detail: { value: '{"fee":1}', type: 'Json' },
        total: { value: 9_000_000_000, type: 'Long' },
      },
      localVariables: { note: { value: 'local', type: 'String' } },
    });
    assert.equal(response.statusCode, 204, response.body);
    const instance = await fixture.instance(instanceId);
    assert.equal(instance.state, 'completed');
    assert.deepEqual(instance.variables, {
      receipt: 'r-1',
      paidAt: '2024-03-04T09:11:12.000Z',
      detail: { fee: 1 },
      total: 9_000_000_000,
      note: 'local',
    });
  });

  test('bad input is a Camunda-shaped 400', async () => {
    await fixture.start({});
    const [task] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    const unknownType = await post(`/external-task/${task?.id}/complete`, {
      workerId: 'w1',
      variables: { file: { value: 'aGk=', type: 'File', valueInfo: { filename: 'a.txt' } } },
    });
    assertCamundaError(unknownType, 400, 'InvalidRequestException', /'file'.*'File' is not supported/);
    const missingWorker = await post(`/external-task/${task?.id}/complete`, { variables: {} });
    assertCamundaError(missingWorker, 400, 'InvalidRequestException', /workerId/);
    const malformed = await fixture.camunda({
      method: 'POST',
      url: '/engine-rest/external-task/fetchAndLock',
      body: '{"workerId": ',
      headers: { 'content-type': 'application/json' },
    });
    assertCamundaError(malformed, 400, 'InvalidRequestException', /not valid JSON/);
    const noLockDuration = await post('/external-task/fetchAndLock', {
      workerId: 'w1',
      maxTasks: 1,
      topics: [{ topicName: 'charge' }],
    });
    assertCamundaError(noLockDuration, 400, 'InvalidRequestException', /lockDuration/);
    const versionTag = await post('/external-task/fetchAndLock', {
      workerId: 'w1',
      maxTasks: 1,
      topics: [topic({ processDefinitionVersionTag: 'v1' })],
    });
    assertCamundaError(versionTag, 400, 'InvalidRequestException', /processDefinitionVersionTag/);
    const unsupportedQuery = await get('/external-task?sortBy=id');
    assertCamundaError(unsupportedQuery, 400, 'InvalidRequestException', /'sortBy' is not supported/);
    // The task is still locked by w1 and unchanged.
    assert.equal((await post(`/external-task/${task?.id}/complete`, { workerId: 'w1' })).statusCode, 204);
  });

  test('an unknown task id is a 404 InvalidRequestException on every endpoint', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000001', 'not-a-uuid']) {
      for (const [path, body] of [
        ['complete', { workerId: 'w1' }],
        ['failure', { workerId: 'w1', retries: 1 }],
        ['bpmnError', { workerId: 'w1', errorCode: 'X' }],
        ['extendLock', { workerId: 'w1', newDuration: 1000 }],
        ['unlock', undefined],
      ] as const) {
        const response = await post(`/external-task/${id}/${path}`, body);
        assertCamundaError(
          response,
          404,
          'InvalidRequestException',
          new RegExp(`External task with id ${id} does not exist`),
        );
      }
      assertCamundaError(await get(`/external-task/${id}`), 404, 'InvalidRequestException');
    }
  });

  test('a report by another worker than the lock holder is a 400', async () => {
    await fixture.start({});
    const [task] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    for (const [path, body] of [
      ['complete', { workerId: 'w2' }],
      ['failure', { workerId: 'w2', retries: 1 }],
      ['bpmnError', { workerId: 'w2', errorCode: 'DECLINED' }],
      ['extendLock', { workerId: 'w2', newDuration: 1000 }],
    ] as const) {
      const response = await post(`/external-task/${task?.id}/${path}`, body);
      assertCamundaError(response, 400, 'InvalidRequestException', /not locked by this worker/);
    }
  });

  test('failure with retries makes the task fetchable after the timeout; without retries it is an incident', async () => {
    const instanceId = await fixture.start({});
    const [task] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    const failed = await post(`/external-task/${task?.id}/failure`, {
      workerId: 'w1',
      errorMessage: 'card service down',
      errorDetails: 'stack…',
      retries: 2,
      retryTimeout: 0,
    });
    assert.equal(failed.statusCode, 204, failed.body);
    const [again] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    assert.equal(again?.id, task?.id);
    assert.equal(again?.retries, 2);
    assert.equal(again?.errorMessage, 'card service down');
    const final = await post(`/external-task/${task?.id}/failure`, {
      workerId: 'w1',
      errorMessage: 'gave up',
    });
    assert.equal(final.statusCode, 204);
    const instance = await fixture.instance(instanceId);
    assert.equal(instance.incidents.length, 1);
    // weft closes the task when the incident is raised (retrying the incident opens a new one).
    assert.deepEqual((await get(`/external-task?processInstanceId=${instanceId}`)).json(), []);
  });

  test('bpmnError is caught by the boundary event, with its variables, its code and its message', async () => {
    const instanceId = await fixture.start({});
    const [task] = await fetchAndLock({ workerId: 'w1', maxTasks: 1, topics: [topic()] });
    const response = await post(`/external-task/${task?.id}/bpmnError`, {
      workerId: 'w1',
      errorCode: 'DECLINED',
      errorMessage: 'insufficient funds',
      variables: { reason: { value: 'funds', type: 'String' } },
    });
    assert.equal(response.statusCode, 204, response.body);
    const instance = await fixture.instance(instanceId);
    assert.equal(instance.state, 'completed');
    assert.equal(instance.variables.reason, 'funds');
    assert.equal(instance.variables.declineCode, 'DECLINED', 'camunda:errorCodeVariable');
    assert.equal(instance.variables.declineMessage, 'insufficient funds', 'camunda:errorMessageVariable');
  });

  test('extendLock moves the lock expiration; unlock frees the task for others', async () => {
    await fixture.start({});
    const [task] = await fetchAndLock({
      workerId: 'w1',
      maxTasks: 1,
      topics: [topic({ lockDuration: 1000 })],
    });
    const extended = await post(`/external-task/${task?.id}/extendLock`, {
      workerId: 'w1',
      newDuration: 3_600_000,
    });
    assert.equal(extended.statusCode, 204, extended.body);
    const shown = (await get(`/external-task/${task?.id}`)).json() as {
      lockExpirationTime: string;
      workerId: string;
    };
    assert.equal(shown.workerId, 'w1');
    assert.ok(Date.parse(shown.lockExpirationTime.replace('+0000', 'Z')) > Date.now() + 3_000_000);
    assert.equal((await post(`/external-task/${task?.id}/unlock`, undefined)).statusCode, 204);
    const [taken] = await fetchAndLock({ workerId: 'w2', maxTasks: 1, topics: [topic()] });
    assert.equal(taken?.id, task?.id);
  });

  test('GET /external-task lists with filters and paging, /count counts', async () => {
    const first = await fixture.start({});
    const second = await fixture.start({});
    const [locked] = await fetchAndLock({ workerId: 'lister', maxTasks: 1, topics: [topic()] });
    assert.equal(locked?.processInstanceId, first);
    const all = (await get('/external-task?topicName=charge')).json() as {
      id: string;
      processInstanceId: string;
    }[];
    const instances = all.map((task) => task.processInstanceId);
    assert.deepEqual(instances.slice(-2), [first, second]);
    const lockedOnes = (await get('/external-task?locked=true&workerId=lister')).json() as { id: string }[];
    assert.deepEqual(
      lockedOnes.map((task) => task.id),
      [locked.id],
    );
    const page = (
      await get(`/external-task?topicName=charge&firstResult=${instances.length - 1}&maxResults=1`)
    ).json() as {
      processInstanceId: string;
    }[];
    assert.deepEqual(
      page.map((task) => task.processInstanceId),
      [second],
    );
    assert.deepEqual((await get(`/external-task/count?notLocked=true&processInstanceId=${second}`)).json(), {
      count: 1,
    });
    assert.deepEqual((await get(`/external-task/count?locked=true&processInstanceId=${second}`)).json(), {
      count: 0,
    });
    assert.deepEqual((await get(`/external-task/count?tenantIdIn=acme&processInstanceId=${first}`)).json(), {
      count: 1,
    });
    assert.deepEqual((await get('/external-task/count?tenantIdIn=beta', fixture.users.both.jwt)).json(), {
      count: ((await get('/external-task/count?tenantIdIn=beta', fixture.admin)).json() as { count: number })
        .count,
    });
    assertCamundaError(await get('/external-task/count?tenantIdIn=beta'), 400, 'InvalidRequestException');
    const shown = (await get(`/external-task/${locked.id}`)).json() as Record<string, unknown>;
    assert.equal(shown.tenantId, 'acme');
    assert.equal(shown.suspended, false);
    assert.match(String(shown.createTime), camundaDate);
    // A reader of the org may list, but not lock.
    assert.equal((await get(`/external-task/${locked.id}`, fixture.users.reader.jwt)).statusCode, 200);
  });
});
