import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { correlate } from './event-helpers.js';

const js = (script: string) =>
  `<camunda:script scriptFormat="javascript"><![CDATA[${script}]]></camunda:script>`;

// JavaScript execution listeners on the process, a task and a flow, in order with expressions; the
// task's last start listener chooses the route the gateway takes.
const execution = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="jsListeners" isExecutable="true">
    <bpmn:extensionElements>
      <camunda:executionListener event="end">${js("execution.setVariable('processEnd', execution.getEventName() + ':' + execution.getCurrentActivityId());")}</camunda:executionListener>
    </bpmn:extensionElements>
    <bpmn:startEvent id="s"/>
    <bpmn:task id="t">
      <bpmn:extensionElements>
        <camunda:executionListener event="start" expression="\${execution.setVariable('log', 'juel1')}"/>
        <camunda:executionListener event="start">${js("execution.setVariable('log', log + ',js:' + execution.getEventName() + ':' + execution.getCurrentActivityId());")}</camunda:executionListener>
        <camunda:executionListener event="start" expression="\${execution.setVariable('log', log.concat(',juel2'))}"/>
        <camunda:executionListener event="start">${js("if (execution.getVariable('fail') === true) throw new Error('not now');\nexecution.setVariable('route', amount > 100 ? 'big' : 'small');")}</camunda:executionListener>
      </bpmn:extensionElements>
    </bpmn:task>
    <bpmn:exclusiveGateway id="g"/>
    <bpmn:userTask id="review"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="g"/>
    <bpmn:sequenceFlow id="big" sourceRef="g" targetRef="review">
      <bpmn:extensionElements>
        <camunda:executionListener>${js("execution.setVariable('took', execution.getCurrentActivityId() + ':' + execution.getProcessBusinessKey() + ':' + execution.processBusinessKey);")}</camunda:executionListener>
      </bpmn:extensionElements>
      <bpmn:conditionExpression>\${route == 'big'}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="g" targetRef="e"><bpmn:conditionExpression>\${route == 'small'}</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f4" sourceRef="review" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`;

// A user task with a JavaScript delete listener, interrupted by a message boundary event.
const deletion = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:message id="m" name="stop-review"/>
  <bpmn:process id="jsDelete" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="u">
      <bpmn:extensionElements>
        <camunda:taskListener event="delete">${js("if (failDelete) throw new Error('cannot clean up');\ntask.setVariable('deletedBy', task.getEventName() + ':' + task.getTaskDefinitionKey() + ':' + reason);")}</camunda:taskListener>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:boundaryEvent id="stop" attachedToRef="u"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>
    <bpmn:userTask id="after"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
    <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="stop" targetRef="after"/>
  </bpmn:process>
</bpmn:definitions>`;

interface Task {
  id: string;
  task_definition_key?: string;
}

void describe('Camunda 7 JavaScript listeners in running instances', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    for (const xml of [execution, deletion]) {
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

  const startWithKey = async (processKey: string, variables: Record<string, unknown>) => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: processKey, variables, business_key: 'order-7' },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; state: string };
  };
  const variablesOf = async (id: string) => (await f.instance(id)).variables as Record<string, unknown>;
  const tasksOf = async (id: string): Promise<Task[]> => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${id}`,
      token: f.tokens.operator,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Task[];
  };
  const post = (url: string, body?: Record<string, unknown>) =>
    f.workflow.request({ method: 'POST', url, token: f.tokens.operator, ...(body ? { body } : {}) });
  const history = async (id: string) => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances/${id}/history`,
      token: f.tokens.reader,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { kind: string; element_id: string; data: Record<string, unknown> }[];
  };

  test('start listeners run in model order with the expressions, and the variable the last sets routes the gateway; the take listener sees the flow and the business key', async () => {
    const instance = await startWithKey('jsListeners', { amount: 500 });
    assert.equal(instance.state, 'running');
    const variables = await variablesOf(instance.id);
    assert.equal(variables.log, 'juel1,js:start:t,juel2');
    assert.equal(variables.route, 'big');
    assert.equal(variables.took, 'big:order-7:order-7');
    assert.equal(variables.processEnd, undefined);
    const [task] = await tasksOf(instance.id);
    assert.ok(task);
    const steps = (await history(instance.id)).filter((entry) => entry.kind === 'scriptStep');
    assert.deepEqual(
      steps.map((entry) => [entry.element_id, entry.data.name, entry.data.status]),
      [
        ['t', 'executionListener:start', 'ok'],
        ['t', 'executionListener:start', 'ok'],
        ['big', 'executionListener:take', 'ok'],
      ],
    );

    const completed = await post(`/api/v1/tasks/${task.id}/complete`, {});
    assert.ok(completed.statusCode < 300, completed.body);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).processEnd, 'end:null');
  });

  test("the process's end listener runs when the instance completes in the call that started it", async () => {
    const instance = await startWithKey('jsListeners', { amount: 5 });
    assert.equal(instance.state, 'completed');
    const variables = await variablesOf(instance.id);
    assert.equal(variables.route, 'small');
    assert.equal(variables.took, undefined);
    assert.equal(variables.processEnd, 'end:null');
  });

  test('a failing start listener raises an incident on its task; fixing the variable and retrying runs it (not those before it) and goes on', async () => {
    const instance = await startWithKey('jsListeners', { amount: 500, fail: true });
    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    const incidents = failed.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 't');
    assert.match(
      incidents[0]?.message ?? '',
      /javascript execution listener \(event 'start'\) of 't' failed at line 1.*not now/,
    );
    assert.equal((await variablesOf(instance.id)).route, undefined);

    const patched = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${instance.id}/variables`,
      token: f.tokens.operator,
      body: { variables: { fail: false, log: 'fixed' } },
    });
    assert.ok(patched.statusCode < 300, patched.body);
    const retried = await post(`/api/v1/process-instances/${instance.id}/retry`);
    assert.ok(retried.statusCode < 300, retried.body);
    const resumed = await f.instance(instance.id);
    assert.equal(resumed.state, 'running');
    const variables = resumed.variables as Record<string, unknown>;
    assert.equal(variables.route, 'big');
    assert.equal(variables.log, 'fixed', 'the listeners before the failed one did not run again');
    assert.equal((await tasksOf(instance.id)).length, 1);
  });

  test('cancelling the instance runs the delete listener of its open task after the cancel, in the same call', async () => {
    const instance = await f.start('jsDelete', { failDelete: false, reason: 'cancelled' });
    assert.equal((await tasksOf(instance.id)).length, 1);
    const cancelled = await post(`/api/v1/process-instances/${instance.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const ended = await f.instance(instance.id);
    assert.equal(ended.state, 'cancelled');
    assert.equal((ended.variables as Record<string, unknown>).deletedBy, 'delete:u:cancelled');
    assert.deepEqual(await tasksOf(instance.id), []);
  });

  test('an interrupting message boundary event runs the delete listener of the task it withdraws', async () => {
    const instance = await f.start('jsDelete', { failDelete: false, reason: 'message' });
    await correlate(f, { message_name: 'stop-review' });
    const moved = await f.instance(instance.id);
    assert.equal(moved.state, 'running');
    assert.deepEqual(moved.active_element_ids, ['after']);
    assert.equal((moved.variables as Record<string, unknown>).deletedBy, 'delete:u:message');
  });

  test('a failing delete listener does not stop the cancel: no incident, the failure is in the history', async () => {
    const instance = await f.start('jsDelete', { failDelete: true, reason: 'x' });
    const cancelled = await post(`/api/v1/process-instances/${instance.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const ended = await f.instance(instance.id);
    assert.equal(ended.state, 'cancelled');
    assert.deepEqual(ended.incidents, []);
    assert.equal((ended.variables as Record<string, unknown>).deletedBy, undefined);
    const failures = (await history(instance.id)).filter((entry) => entry.kind === 'listenerFailed');
    assert.equal(failures.length, 1);
    assert.equal(failures[0]?.element_id, 'u');
    assert.match(
      String(failures[0]?.data.message),
      /javascript task listener \(event 'delete'\) of 'u' failed.*cannot clean up/,
    );
  });
});
