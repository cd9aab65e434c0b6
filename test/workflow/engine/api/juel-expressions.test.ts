import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// A Camunda 7 model with JUEL everywhere Modeler lets one write it (fixtures/juel-approval.bpmn).
describe('JUEL expressions in running instances', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-24T09:00:00Z');
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
    const deployed = await f.deploy('juel-approval.bpmn');
    assert.equal(deployed.statusCode, 201, deployed.body);
  });
  after(() => f.close());

  const start = async (businessKey: string, variables: Record<string, unknown>) => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'juel-approval', business_key: businessKey, variables },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; state: string; variables: Record<string, unknown> };
  };
  const tasksOf = async (instanceId: string) =>
    (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; assignee: string | null; candidate_groups: string[] }[];
  const userTaskWait = async (instanceId: string) => {
    const { rows } = await f.workflow.database.pool.query<{
      engine_state: { waits: Record<string, unknown> };
    }>('SELECT engine_state FROM process_instances WHERE id = $1', [instanceId]);
    return Object.values(rows[0]?.engine_state.waits ?? {}).find(
      (wait) => (wait as { kind: string }).kind === 'userTask',
    ) as { dueDate: string | null } | undefined;
  };
  const complete = async (taskId: string, variables: Record<string, unknown>) => {
    const response = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${taskId}/complete`,
      token: f.tokens.operator,
      body: { variables },
    });
    assert.equal(response.statusCode, 204, response.body);
  };

  test('input and output parameters read variables and the execution; a condition routes by their result', async () => {
    const instance = await start('order-1', {
      amount: 250,
      approver: null,
      recipients: ['a'],
      pause: 'PT1M',
    });
    assert.equal(instance.variables.label, 'Order order-1 of 250 at prepare');
    assert.equal(instance.variables.large, false);
    assert.deepEqual(await tasksOf(instance.id), [], 'a small order skips the approval');
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['pause']);
  });

  test('the user task takes its assignee, candidate groups and due date from JUEL', async () => {
    const instance = await start('order-2', {
      amount: 5000,
      approver: 'mary@example.com',
      groups: 'finance, audit',
      recipients: [],
      pause: 'PT1M',
    });
    assert.equal(instance.variables.large, true);
    const [task] = await tasksOf(instance.id);
    assert.equal(task?.assignee, 'mary@example.com');
    assert.deepEqual(task?.candidate_groups, ['finance', 'audit', 'management']);
    assert.equal((await userTaskWait(instance.id))?.dueDate, '2026-12-01T09:00:00.000Z');
  });

  test('${approved} and ${!approved} choose the way out; the collection and the timer come from JUEL', async () => {
    const rejected = await start('order-3', {
      amount: 2000,
      approver: 'x',
      groups: [],
      recipients: [],
      pause: 'PT1M',
    });
    const [first] = await tasksOf(rejected.id);
    await complete(first!.id, { approved: false });
    assert.equal((await f.instance(rejected.id)).state, 'completed');

    const approved = await start('order-4', {
      amount: 2000,
      approver: 'x',
      groups: ['finance'],
      recipients: ['ann', 'bob', 'cyd'],
      pause: 'PT10M',
    });
    const [second] = await tasksOf(approved.id);
    assert.deepEqual(second?.candidate_groups, ['finance', 'management'], 'a list and a constant');
    await complete(second!.id, { approved: true });
    const waiting = await f.instance(approved.id);
    assert.deepEqual(waiting.active_element_ids, ['pause']);
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${approved.id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id: string }[];
    const notified = history.filter(
      (entry) => entry.kind === 'elementCompleted' && entry.element_id === 'notify',
    );
    assert.equal(notified.length, 4, 'three instances and the body');
    now = new Date(now.getTime() + 10 * 60_000);
    await f.workflow.service.fireDueTimers();
    assert.equal((await f.instance(approved.id)).state, 'completed');
  });

  test('an expression that fails at run time is an incident naming the problem', async () => {
    const instance = await start('order-5', {
      amount: 'lots',
      approver: null,
      recipients: [],
      pause: 'PT1M',
    });
    assert.equal(instance.state, 'incident');
    const detail = await f.instance(instance.id);
    const [incident] = detail.incidents as { activity_id: string; message: string }[];
    assert.equal(incident?.activity_id, 'prepare');
    assert.match(incident?.message ?? '', /lots/);
  });

  test('an unknown variable is an incident, as in Camunda', async () => {
    const instance = await start('order-6', { approver: null, recipients: [], pause: 'PT1M' });
    assert.equal(instance.state, 'incident');
    const [incident] = (await f.instance(instance.id)).incidents as { message: string }[];
    assert.match(incident?.message ?? '', /amount/);
  });
});
