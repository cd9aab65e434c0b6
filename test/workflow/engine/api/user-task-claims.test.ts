import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface TaskDetails {
  id: string;
  activity_id: string;
  process_key: string;
  assignee: string | null;
  candidate_groups: string[];
  variables: Record<string, unknown>;
  form_key: string | null;
  form: { components: { key: string }[] } | null;
}

describe('user tasks: details with forms, claim and unclaim', () => {
  let f: EngineFixture;
  let worker: string;

  before(async () => {
    f = await createEngineFixture();
    const userId = await f.workflow.createUser('worker@example.com', 'worker password');
    const granted = await f.workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${f.orgId}/members/${userId}`,
      token: f.tokens.admin,
      body: { roles: ['Worker'] },
    });
    assert.equal(granted.statusCode, 200, granted.body);
    worker = await f.workflow.login('worker@example.com', 'worker password');
    assert.equal((await f.deploy('task-forms.bpmn')).statusCode, 201);
  });
  after(() => f?.close());

  test('a task shows its process key, candidate groups and variables; no form without a form key', async () => {
    const started = await f.start('taskForms', { order: 7 });
    const task = await taskAt(started.id, 'review');
    assert.equal(task.process_key, 'taskForms');
    assert.deepEqual(task.candidate_groups, ['reviewers']);
    assert.deepEqual(task.variables, { order: 7 });
    assert.equal(task.form_key, null);
    assert.equal(task.form, null);
    const outsider = await call('GET', `/api/v1/tasks/${task.id}`, f.tokens.outsider);
    assert.equal(outsider.statusCode, 403);
    assert.equal((await call('GET', `/api/v1/tasks/${randomUUID()}`, f.tokens.reader)).statusCode, 404);
  });

  test('an embedded form-js form comes with the task that names it', async () => {
    const started = await f.start('taskForms');
    const review = await taskAt(started.id, 'review');
    const done = await call('POST', `/api/v1/tasks/${review.id}/complete`, f.tokens.operator, {
      variables: { reviewed: true },
    });
    assert.equal(done.statusCode, 204, done.body);
    const approve = await taskAt(started.id, 'approve');
    assert.equal(approve.form_key, 'camunda-forms:bpmn:approveForm');
    assert.deepEqual(
      approve.form?.components.map((component) => component.key),
      ['approver', 'amount', 'approved'],
    );
  });

  test('a Worker claims an unassigned task, others cannot take it, and the assignee unclaims it', async () => {
    const started = await f.start('taskForms');
    const task = await taskAt(started.id, 'review');
    assert.equal((await call('POST', `/api/v1/tasks/${task.id}/claim`, f.tokens.reader)).statusCode, 403);
    assert.equal((await call('POST', `/api/v1/tasks/${task.id}/claim`, worker)).statusCode, 204);
    assert.equal((await taskAt(started.id, 'review')).assignee, 'worker@example.com');
    assert.equal((await call('POST', `/api/v1/tasks/${task.id}/claim`, worker)).statusCode, 204, 'again');
    const taken = await call('POST', `/api/v1/tasks/${task.id}/claim`, f.tokens.operator);
    assert.equal(taken.statusCode, 409);
    assert.match((taken.json() as { message: string }).message, /assigned to worker@example\.com/);
    const notHers = await call('POST', `/api/v1/tasks/${task.id}/unclaim`, f.tokens.developer);
    assert.equal(notHers.statusCode, 403);
    assert.equal((await call('POST', `/api/v1/tasks/${task.id}/unclaim`, worker)).statusCode, 204);
    assert.equal((await taskAt(started.id, 'review')).assignee, null);
    assert.equal((await call('POST', `/api/v1/tasks/${randomUUID()}/claim`, worker)).statusCode, 404);
    assert.equal((await call('POST', `/api/v1/tasks/${randomUUID()}/unclaim`, worker)).statusCode, 404);
  });

  test('a Worker completes only a task it holds', async () => {
    const started = await f.start('taskForms');
    const task = await taskAt(started.id, 'review');
    const refused = await call('POST', `/api/v1/tasks/${task.id}/complete`, worker, { variables: {} });
    assert.equal(refused.statusCode, 403);
    assert.equal((await call('POST', `/api/v1/tasks/${task.id}/claim`, worker)).statusCode, 204);
    const done = await call('POST', `/api/v1/tasks/${task.id}/complete`, worker, { variables: { ok: 1 } });
    assert.equal(done.statusCode, 204, done.body);
    const instance = await f.instance(started.id);
    assert.deepEqual(instance.active_element_ids, ['approve']);
  });

  test('the list filters unassigned tasks and pages oldest first', async () => {
    const first = await f.start('taskForms');
    const second = await f.start('taskForms');
    const held = await taskAt(first.id, 'review');
    assert.equal((await call('POST', `/api/v1/tasks/${held.id}/claim`, worker)).statusCode, 204);
    const ids = async (query: string) =>
      (
        (await call('GET', `/api/v1/tasks?org_id=${f.orgId}&${query}`, f.tokens.reader)).json() as {
          id: string;
        }[]
      ).map((task) => task.id);
    const all = await ids('limit=1000');
    const unassigned = await ids('unassigned=true');
    assert.ok(!unassigned.includes(held.id));
    assert.ok(unassigned.includes((await taskAt(second.id, 'review')).id));
    assert.deepEqual(await ids('assignee=worker@example.com'), [held.id]);
    assert.deepEqual(await ids('limit=2&offset=1'), all.slice(1, 3));
    const tooMany = await call('GET', `/api/v1/tasks?org_id=${f.orgId}&limit=1001`, f.tokens.reader);
    assert.equal(tooMany.statusCode, 400);
  });

  function call(method: 'GET' | 'POST', url: string, token: string, body?: unknown) {
    return f.workflow.request({ method, url, token, ...(body === undefined ? {} : { body }) });
  }

  async function taskAt(instanceId: string, activityId: string): Promise<TaskDetails> {
    const list = await call(
      'GET',
      `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
      f.tokens.reader,
    );
    const id = (list.json() as { id: string; activity_id: string }[]).find(
      (task) => task.activity_id === activityId,
    )?.id;
    assert.ok(id, `an open task at ${activityId}`);
    const response = await call('GET', `/api/v1/tasks/${id}`, f.tokens.reader);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as TaskDetails;
  }
});
