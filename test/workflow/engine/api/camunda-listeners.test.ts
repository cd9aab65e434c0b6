import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// The user task of Camunda 7's invoice example (invoice.v2.bpmn), with its two JavaScript task
// listeners, between a start and an end event.
const invoice = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="invoice" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="approveInvoice" name="Approve Invoice" camunda:formKey="embedded:app:forms/approve-invoice.html" camunda:candidateGroups="\${approverGroups}" camunda:dueDate="\${dateTime().plusWeeks(1).toDate()}">
      <bpmn:extensionElements>
        <camunda:taskListener event="create">
          <camunda:script scriptFormat="javascript"><![CDATA[if(!!task.getVariable('approver')) {
  task.setAssignee(approver);
}]]></camunda:script>
        </camunda:taskListener>
        <camunda:taskListener event="assignment">
          <camunda:script scriptFormat="javascript"><![CDATA[task.setVariable('approver', task.getAssignee());]]></camunda:script>
        </camunda:taskListener>
        <camunda:taskListener event="complete">
          <camunda:script scriptFormat="javascript"><![CDATA[if (task.getVariable('fail') === true) throw new Error('not now');
execution.setVariable('approvedBy', task.getAssignee() + ':' + task.getVariable('approved'));]]></camunda:script>
        </camunda:taskListener>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="approveInvoice"/>
    <bpmn:sequenceFlow id="f2" sourceRef="approveInvoice" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`;

// JUEL expression listeners on the process, a task, a flow and a user task.
const expressions = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="juelListeners" isExecutable="true">
    <bpmn:extensionElements>
      <camunda:executionListener event="start" expression="\${execution.setVariable('processStarted', true)}"/>
      <camunda:executionListener event="end" expression="\${execution.setVariable('processEnded', true)}"/>
    </bpmn:extensionElements>
    <bpmn:startEvent id="s"/>
    <bpmn:task id="t">
      <bpmn:extensionElements>
        <camunda:executionListener event="start" expression="\${execution.setVariable('started', execution.activityId)}"/>
        <camunda:executionListener event="end" expression="\${execution.setVariable('ended', n + 1)}"/>
      </bpmn:extensionElements>
    </bpmn:task>
    <bpmn:userTask id="u" camunda:assignee="ada">
      <bpmn:extensionElements>
        <camunda:taskListener event="create" expression="\${task.setVariable('createdFor', task.assignee)}"/>
        <camunda:taskListener event="complete" expression="\${execution.setVariable('completedWith', decision)}"/>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="u">
      <bpmn:extensionElements>
        <camunda:executionListener expression="\${execution.setVariable('taken', 'f2')}"/>
      </bpmn:extensionElements>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f3" sourceRef="u" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`;

interface Task {
  id: string;
  assignee: string | null;
}

describe('Camunda 7 execution and task listeners in running instances', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    for (const xml of [invoice, expressions]) {
      const response = await f.workflow.request({
        method: 'POST',
        url: '/api/v1/deployments',
        token: f.tokens.developer,
        body: { org_id: f.orgId, process_group_id: f.groupId, xml },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
  });
  after(() => f.close());

  const tasksOf = async (instanceId: string): Promise<Task[]> => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
      token: f.tokens.operator,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Task[];
  };
  const only = async (instanceId: string): Promise<Task> => {
    const tasks = await tasksOf(instanceId);
    assert.equal(tasks.length, 1, JSON.stringify(tasks));
    return tasks[0] as Task;
  };
  const variablesOf = async (instanceId: string) =>
    (await f.instance(instanceId)).variables as Record<string, unknown>;
  const post = (url: string, body?: Record<string, unknown>) =>
    f.workflow.request({ method: 'POST', url, token: f.tokens.operator, ...(body ? { body } : {}) });

  test('the create listener assigns the task to the approver variable, and the assignment listener runs', async () => {
    const instance = await f.start('invoice', { approver: 'demo', approverGroups: ['accounting'] });
    assert.equal(instance.state, 'running');
    const task = await only(instance.id);
    assert.equal(task.assignee, 'demo');
    assert.equal((await variablesOf(instance.id)).approver, 'demo');
  });

  test('without an approver the task stays unassigned and no assignment listener runs', async () => {
    const instance = await f.start('invoice', { approverGroups: ['accounting'] });
    const task = await only(instance.id);
    assert.equal(task.assignee, null);
    assert.equal((await variablesOf(instance.id)).approver, undefined);
  });

  test('a claim runs the assignment listener: the approver variable follows the claimer; an unclaim clears it', async () => {
    const instance = await f.start('invoice', { approverGroups: ['accounting'] });
    const task = await only(instance.id);
    const claimed = await post(`/api/v1/tasks/${task.id}/claim`);
    assert.ok(claimed.statusCode < 300, claimed.body);
    assert.equal((await only(instance.id)).assignee, 'operator@example.com');
    assert.equal((await variablesOf(instance.id)).approver, 'operator@example.com');

    const unclaimed = await post(`/api/v1/tasks/${task.id}/unclaim`);
    assert.ok(unclaimed.statusCode < 300, unclaimed.body);
    assert.equal((await only(instance.id)).assignee, null);
    assert.equal((await variablesOf(instance.id)).approver, null);
  });

  test('claiming a task assigned to someone else through its listeners is a 409', async () => {
    const instance = await f.start('invoice', { approver: 'demo', approverGroups: [] });
    const task = await only(instance.id);
    const claimed = await post(`/api/v1/tasks/${task.id}/claim`);
    assert.equal(claimed.statusCode, 409, claimed.body);
    assert.equal((await only(instance.id)).assignee, 'demo');
  });

  test('the complete listener sees the completion variables and its variable is there after completion', async () => {
    const instance = await f.start('invoice', { approver: 'demo', approverGroups: [] });
    const task = await only(instance.id);
    const completed = await post(`/api/v1/tasks/${task.id}/complete`, { variables: { approved: true } });
    assert.ok(completed.statusCode < 300, completed.body);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).approvedBy, 'demo:true');
  });

  test('a failing JavaScript listener raises an incident on the task; fixing the variable and retrying runs it again', async () => {
    const instance = await f.start('invoice', { approver: 'demo', approverGroups: [], fail: true });
    const task = await only(instance.id);
    const completed = await post(`/api/v1/tasks/${task.id}/complete`, { variables: { approved: false } });
    assert.ok(completed.statusCode < 300, completed.body);
    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    const incidents = failed.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents[0]?.activity_id, 'approveInvoice');
    assert.match(
      incidents[0]?.message ?? '',
      /javascript task listener \(event 'complete'\) of 'approveInvoice' failed at line 1.*not now/,
    );
    assert.equal((await variablesOf(instance.id)).approvedBy, undefined);

    const patched = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${instance.id}/variables`,
      token: f.tokens.operator,
      body: { variables: { fail: false } },
    });
    assert.ok(patched.statusCode < 300, patched.body);
    const retried = await post(`/api/v1/process-instances/${instance.id}/retry`);
    assert.ok(retried.statusCode < 300, retried.body);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).approvedBy, 'demo:false');
  });

  test('JUEL expression listeners run on process start and end, element start and end, take, create and complete', async () => {
    const instance = await f.start('juelListeners', { n: 1 });
    const running = await variablesOf(instance.id);
    assert.equal(running.processStarted, true);
    assert.equal(running.started, 't');
    assert.equal(running.ended, 2);
    assert.equal(running.taken, 'f2');
    assert.equal(running.createdFor, 'ada');
    assert.equal(running.processEnded, undefined);
    const task = await only(instance.id);
    const completed = await post(`/api/v1/tasks/${task.id}/complete`, { variables: { decision: 'yes' } });
    assert.ok(completed.statusCode < 300, completed.body);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).completedWith, 'yes');
    assert.equal((done.variables as Record<string, unknown>).processEnded, true);
  });
});
