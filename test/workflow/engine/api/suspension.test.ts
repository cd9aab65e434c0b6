import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { postMessage } from './event-helpers.js';

describe('suspending and resuming instances and versions', () => {
  let f: EngineFixture;
  // Real time plus what the tests add: tasks are due from the database's now.
  let offsetMs = 0;
  const moveClock = (ms: number) => (offsetMs += ms);
  before(async () => {
    f = await createEngineFixture(
      { WORKFLOW_JWT_TTL_SECONDS: '86400' },
      { now: () => new Date(Date.now() + offsetMs) },
    );
    assert.equal((await f.deploy('operations.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const post = (url: string, token = f.tokens.operator, body?: unknown) =>
    f.workflow.request({ method: 'POST', url, token, ...(body === undefined ? {} : { body }) });
  const suspend = (id: string, token?: string) => post(`/api/v1/process-instances/${id}/suspend`, token);
  const resume = (id: string, token?: string) => post(`/api/v1/process-instances/${id}/resume`, token);
  const userTask = async (instanceId: string) => {
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    assert.equal(tasks.length, 1);
    return tasks[0]?.id as string;
  };
  const history = async (id: string) =>
    (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; data: Record<string, unknown> }[];
  const payTask = async (instanceId: string) => {
    const tasks = await f.fetch('w1', 'opsPay', 50);
    return tasks.find((task) => task.process_instance_id === instanceId);
  };

  test('a suspended instance is not fetched; a lock held before the suspension cannot complete; resume continues', async () => {
    const held = await f.start('ops');
    const heldTask = await payTask(held.id);
    assert.ok(heldTask, 'fetched before the suspension');
    const instance = await f.start('ops');
    const suspended = await suspend(instance.id);
    assert.equal(suspended.statusCode, 200, suspended.body);
    assert.equal((suspended.json() as { suspended: boolean }).suspended, true);
    assert.equal((await suspend(held.id)).statusCode, 200);
    assert.equal(await payTask(instance.id), undefined, 'fetch-and-lock skips a suspended instance');
    const refused = await post(`/api/v1/external-tasks/${heldTask.id}/complete`, f.tokens.operator, {
      worker_id: 'w1',
      variables: {},
    });
    assert.equal(refused.statusCode, 409, refused.body);
    const failed = await post(`/api/v1/external-tasks/${heldTask.id}/failure`, f.tokens.operator, {
      worker_id: 'w1',
      error_message: 'down',
      retries: 2,
      retry_timeout_ms: 0,
    });
    assert.equal(failed.statusCode, 409, failed.body);
    assert.equal((await resume(instance.id)).statusCode, 200);
    assert.equal((await resume(held.id)).statusCode, 200);
    const task = await payTask(instance.id);
    assert.ok(task, 'fetchable again after the resume');
    const completed = await post(`/api/v1/external-tasks/${heldTask.id}/complete`, f.tokens.operator, {
      worker_id: 'w1',
      variables: {},
    });
    assert.equal(completed.statusCode, 204, completed.body);
    const kinds = (await history(held.id)).map((entry) => entry.kind);
    assert.ok(kinds.indexOf('instanceSuspended') < kinds.indexOf('instanceResumed'));
    const entry = (await history(held.id)).find((e) => e.kind === 'instanceSuspended');
    assert.equal(typeof entry?.data.actor, 'string');
  });

  test('a user task of a suspended instance is not completable (409) until it is resumed', async () => {
    const instance = await f.start('ops');
    const task = await payTask(instance.id);
    assert.ok(task);
    const done = await post(`/api/v1/external-tasks/${task.id}/complete`, f.tokens.operator, {
      worker_id: 'w1',
      variables: {},
    });
    assert.equal(done.statusCode, 204, done.body);
    const taskId = await userTask(instance.id);
    assert.equal((await suspend(instance.id)).statusCode, 200);
    const refused = await post(`/api/v1/tasks/${taskId}/complete`, f.tokens.operator, {});
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal((refused.json() as { code: string }).code, 'U409');
    assert.equal((await resume(instance.id)).statusCode, 200);
    assert.equal((await post(`/api/v1/tasks/${taskId}/complete`, f.tokens.operator, {})).statusCode, 204);
  });

  test('a due timer of a suspended instance does not fire; it fires after the resume', async () => {
    const instance = await f.start('ops');
    const task = await payTask(instance.id);
    assert.ok(task);
    await post(`/api/v1/external-tasks/${task.id}/complete`, f.tokens.operator, {
      worker_id: 'w1',
      variables: {},
    });
    await post(`/api/v1/tasks/${await userTask(instance.id)}/complete`, f.tokens.operator, {});
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['pause']);
    assert.equal((await suspend(instance.id)).statusCode, 200);
    moveClock(2 * 60 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['pause'], 'the timer waits');
    assert.equal((await resume(instance.id)).statusCode, 200);
    await f.workflow.service.fireDueTimers();
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['done'], 'fired after the resume');
  });

  test('a message is not correlated to a suspended instance', async () => {
    const instance = await f.start('opsWait');
    assert.equal((await suspend(instance.id)).statusCode, 200);
    const sent = await postMessage(f, { message_name: 'opsPing' });
    assert.notEqual(sent.statusCode, 200, sent.body);
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['ping']);
    assert.equal((await resume(instance.id)).statusCode, 200);
  });

  test('a signal is not delivered to a suspended instance (it is lost for it, as in Camunda 7)', async () => {
    const suspendedOne = await f.start('opsSignalled');
    const runningOne = await f.start('opsSignalled');
    assert.equal((await suspend(suspendedOne.id)).statusCode, 200);
    const sent = await post('/api/v1/signals', f.tokens.operator, {
      org_id: f.orgId,
      signal_name: 'opsSignal',
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.deepEqual((await f.instance(runningOne.id)).active_element_ids, ['after2']);
    assert.deepEqual((await f.instance(suspendedOne.id)).active_element_ids, ['sig']);
    assert.equal((await resume(suspendedOne.id)).statusCode, 200);
    assert.deepEqual(
      (await f.instance(suspendedOne.id)).active_element_ids,
      ['sig'],
      'not replayed on resume',
    );
  });

  test("a suspended version's timer start waits and fires after the resume", async () => {
    const deployed = await f.deploy('operations-timer-start.bpmn');
    assert.equal(deployed.statusCode, 201, deployed.body);
    const definitionId = (deployed.json() as { id: string }).id;
    const count = async () =>
      Number(
        (
          await f.workflow.database.pool.query<{ n: string }>(
            'SELECT count(*) AS n FROM process_instances WHERE definition_id = $1',
            [definitionId],
          )
        ).rows[0]?.n,
      );
    assert.equal((await post(`/api/v1/deployments/${definitionId}/suspend`)).statusCode, 200);
    moveClock(2 * 60 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.equal(await count(), 0, 'no start while suspended');
    assert.equal((await post(`/api/v1/deployments/${definitionId}/resume`)).statusCode, 200);
    await f.workflow.service.fireDueTimers();
    assert.equal(await count(), 1, 'the due start fires once after the resume');
  });

  test('the detail and the list show the flag; the list filters by it', async () => {
    const instance = await f.start('opsWait');
    await suspend(instance.id);
    assert.equal((await f.instance(instance.id)).suspended, true);
    const list = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances?org_id=${f.orgId}&suspended=true`,
      token: f.tokens.reader,
    });
    const ids = (list.json() as { id: string; suspended: boolean }[]).map((i) => i.id);
    assert.ok(ids.includes(instance.id));
    const others = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances?org_id=${f.orgId}&suspended=false`,
      token: f.tokens.reader,
    });
    assert.ok(!(others.json() as { id: string }[]).some((i) => i.id === instance.id));
    assert.equal((await resume(instance.id)).statusCode, 200);
    assert.equal((await f.instance(instance.id)).suspended, false);
  });

  test('a Reader gets 403; an unknown instance 404; an ended one 409; a suspended one can still be cancelled', async () => {
    const instance = await f.start('opsWait');
    assert.equal((await suspend(instance.id, f.tokens.reader)).statusCode, 403);
    assert.equal((await resume(instance.id, f.tokens.reader)).statusCode, 403);
    assert.equal((await suspend('00000000-0000-4000-8000-000000000000')).statusCode, 404);
    assert.equal((await suspend('not-a-uuid')).statusCode, 400);
    assert.equal((await suspend(instance.id)).statusCode, 200);
    const cancelled = await post(`/api/v1/process-instances/${instance.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const ended = await suspend(instance.id);
    assert.equal(ended.statusCode, 409);
    assert.equal((ended.json() as { code: string }).code, 'U409');
  });

  test('suspending a version suspends its running instances and refuses its starts (409); resume undoes both', async () => {
    const running = await f.start('opsWait');
    const definitionId = running.definition_id as string;
    assert.equal(
      (await post(`/api/v1/deployments/${definitionId}/suspend`, f.tokens.reader)).statusCode,
      403,
    );
    const suspended = await post(`/api/v1/deployments/${definitionId}/suspend`);
    assert.equal(suspended.statusCode, 200, suspended.body);
    const body = suspended.json() as { suspended: boolean; instances_changed: number };
    assert.equal(body.suspended, true);
    assert.ok(body.instances_changed >= 1);
    assert.equal((await f.instance(running.id)).suspended, true);
    const byKey = await post('/api/v1/process-instances', f.tokens.operator, {
      org_id: f.orgId,
      process_key: 'opsWait',
    });
    assert.equal(byKey.statusCode, 409, byKey.body);
    const byId = await post('/api/v1/process-instances', f.tokens.operator, {
      org_id: f.orgId,
      definition_id: definitionId,
    });
    assert.equal(byId.statusCode, 409, byId.body);
    const resumed = await post(`/api/v1/deployments/${definitionId}/resume`);
    assert.equal(resumed.statusCode, 200, resumed.body);
    assert.equal((await f.instance(running.id)).suspended, false);
    const started = await post('/api/v1/process-instances', f.tokens.operator, {
      org_id: f.orgId,
      process_key: 'opsWait',
    });
    assert.equal(started.statusCode, 201, started.body);
    assert.equal(
      (await post('/api/v1/deployments/00000000-0000-4000-8000-000000000000/suspend')).statusCode,
      404,
    );
  });
});
