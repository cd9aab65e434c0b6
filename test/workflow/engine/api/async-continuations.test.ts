import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// A JavaScript script task behind an asyncBefore, failing while `broken` is true, retried twice a
// minute apart; a user task behind an asyncAfter.
const xml = (key: string, cycle = 'R2/PT1M') => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="${key}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:scriptTask id="work" scriptFormat="javascript" camunda:asyncBefore="true">
      <bpmn:extensionElements><camunda:failedJobRetryTimeCycle>${cycle}</camunda:failedJobRetryTimeCycle></bpmn:extensionElements>
      <bpmn:script>if (execution.getVariable('broken')) throw new Error('the ledger is down');
execution.setVariable('attempted', true);</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:endEvent id="end"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
  </bpmn:process>
</bpmn:definitions>`;

interface JobRow {
  retries: number;
  attempts: number;
  due_at: Date;
  last_error: string | null;
  element_id: string;
}

describe('asynchronous continuations in running instances', () => {
  let now = new Date('2031-03-01T10:00:00Z');
  const clock = { now: () => now };
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture({}, clock);
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml: xml('ledger') },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
  });
  after(() => f.close());

  const jobsOf = async (instanceId: string) =>
    (
      await f.workflow.database.pool.query<JobRow>(
        'SELECT retries, attempts, due_at, last_error, element_id FROM continuation_jobs WHERE process_instance_id = $1',
        [instanceId],
      )
    ).rows;

  test('the start commits at the asyncBefore; the job runs the script in a call of its own', async () => {
    const instance = await f.start('ledger', { broken: false });
    assert.equal(instance.state, 'running', 'the start call ends at the continuation');
    assert.deepEqual((await f.instance(instance.id)).active_element_ids, ['work']);
    const [job] = await jobsOf(instance.id);
    assert.equal(job?.element_id, 'work');
    assert.equal(job?.retries, 3, 'the first attempt and two retries');

    const ran = await f.workflow.service.runContinuationJobs();
    assert.equal(ran.fired, 1);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).attempted, true);
    assert.deepEqual(await jobsOf(instance.id), [], 'the job row went with its wait');
  });

  test('a failing continuation is rolled back and retried after the cycle interval; the last failure is an incident', async () => {
    const instance = await f.start('ledger', { broken: true });
    const first = await f.workflow.service.runContinuationJobs();
    assert.deepEqual([first.claimed, first.failed], [1, 1]);
    let [job] = await jobsOf(instance.id);
    assert.equal(job?.retries, 2);
    assert.equal(job?.attempts, 1);
    assert.match(job?.last_error ?? '', /the ledger is down/);
    assert.equal(job?.due_at.getTime(), now.getTime() + 60_000, 'due again a minute later');
    const detail = await f.instance(instance.id);
    assert.equal(detail.state, 'running', 'no incident while retries are left');
    assert.deepEqual(detail.incidents, []);
    assert.deepEqual(detail.active_element_ids, ['work']);

    assert.equal((await f.workflow.service.runContinuationJobs()).claimed, 0, 'not due before the interval');
    now = new Date(now.getTime() + 61_000);
    await f.workflow.service.runContinuationJobs();
    [job] = await jobsOf(instance.id);
    assert.equal(job?.retries, 1);
    now = new Date(now.getTime() + 61_000);
    await f.workflow.service.runContinuationJobs();

    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    const incidents = failed.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 'work');
    assert.match(incidents[0]?.message ?? '', /the ledger is down/);
    assert.deepEqual(await jobsOf(instance.id), []);

    const patched = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${instance.id}/variables`,
      token: f.tokens.operator,
      body: { variables: { broken: false } },
    });
    assert.ok(patched.statusCode < 300, patched.body);
    const retried = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/retry`,
      token: f.tokens.operator,
    });
    assert.ok(retried.statusCode < 300, retried.body);
    assert.equal((await f.instance(instance.id)).state, 'completed');
  });

  test('a cycle of R0 makes the first failure an incident; cancelling an instance deletes its job', async () => {
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml: xml('ledgerOnce', 'R0/PT1M') },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    const once = await f.start('ledgerOnce', { broken: true });
    await f.workflow.service.runContinuationJobs();
    assert.equal((await f.instance(once.id)).state, 'incident');

    const cancelled = await f.start('ledgerOnce', { broken: true });
    assert.equal((await jobsOf(cancelled.id)).length, 1);
    const response = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${cancelled.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.ok(response.statusCode < 300, response.body);
    assert.deepEqual(await jobsOf(cancelled.id), []);
  });
});

describe('the continuation executor of a running service', () => {
  let f: EngineFixture;
  before(async () => {
    // No test clock: the service runs its executors itself.
    f = await createEngineFixture();
  });
  after(() => f.close());

  test('an instance stopped at an asyncBefore goes on by itself, woken by the write', async () => {
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml: xml('ledgerLive') },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    const instance = await f.start('ledgerLive', { broken: false });
    const deadline = Date.now() + 10_000;
    let state = instance.state;
    while (state !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = (await f.instance(instance.id)).state;
    }
    assert.equal(state, 'completed');
  });
});
