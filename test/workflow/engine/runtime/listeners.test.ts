import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn, type ProcessModel } from '../../../../src/workflow/engine/model/index.js';
import { Scenario } from './helpers.js';

const model = async (body: string): Promise<ProcessModel> => {
  const result = await compileBpmn(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    ${body}
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
    <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`);
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return result.processes[0] as ProcessModel;
};

const userTask = (listeners: string, attributes = '') =>
  `<bpmn:userTask id="u" ${attributes}><bpmn:extensionElements>${listeners}</bpmn:extensionElements></bpmn:userTask>`;

void describe('task listeners in the engine', () => {
  void test('a JavaScript create listener opens a listener script wait first; its answer opens the task with the assignee it left', async () => {
    const run = new Scenario(
      await model(
        userTask(
          `<camunda:taskListener event="create"><camunda:script scriptFormat="javascript">task.setAssignee('ada')</camunda:script></camunda:taskListener>
           <camunda:taskListener event="assignment" expression="\${task.setVariable('assigned', task.assignee)}"/>`,
        ),
      ),
    ).start({});
    const listener = run.wait('u');
    assert.ok(listener.kind === 'script');
    assert.equal(listener.extension.name, 'taskListener');
    assert.equal(listener.extension.attributes.event, 'create');
    assert.equal(
      run.effectsOf('waitOpened').filter((e) => e.wait.kind === 'userTask').length,
      0,
      'no task yet',
    );

    run.send({
      type: 'taskListenerDone',
      waitId: listener.waitId,
      variables: { seen: true },
      assignee: 'ada',
    });
    const task = run.wait('u');
    assert.ok(task.kind === 'userTask');
    assert.equal(task.assignee, 'ada');
    assert.equal(run.variables().seen, true);
    assert.equal(run.variables().assigned, 'ada', 'the assignee change fired the assignment listener');
  });

  void test('assignTask runs the assignment listeners and records the new assignee; a claim of a task held by another is refused', async () => {
    const run = new Scenario(
      await model(
        userTask(
          `<camunda:taskListener event="assignment" expression="\${task.setVariable('who', task.assignee)}"/>`,
        ),
      ),
    ).start({});
    const task = run.wait('u');
    run.send({ type: 'assignTask', waitId: task.waitId, assignee: 'bob', claim: true });
    assert.equal(run.variables().who, 'bob');
    assert.deepEqual(run.effectsOf('taskAssigned'), [
      { type: 'taskAssigned', waitId: task.waitId, assignee: 'bob' },
    ]);
    const refused = run.try({ type: 'assignTask', waitId: task.waitId, assignee: 'cy', claim: true });
    assert.ok(!refused.ok && refused.error.code === 'notApplicable');
  });

  void test('a failing JUEL listener raises an incident; retrying after a fix runs it again', async () => {
    const run = new Scenario(
      await model(
        userTask(`<camunda:taskListener event="create" expression="\${task.setVariable('x', a.b)}"/>`),
      ),
    ).start({});
    assert.equal(run.incidents().length, 1);
    assert.match(run.incidents()[0]?.message ?? '', /task listener \(event 'create'\) of 'u' failed/);
    run.send({ type: 'setVariables', variables: { a: { b: 1 } } });
    run.send({ type: 'retryIncident', incidentId: run.incidents()[0]?.incidentId ?? '' });
    assert.equal(run.variables().x, 1);
    assert.ok(run.wait('u').kind === 'userTask');
  });

  void test('cancelling the instance runs the delete listeners of its open task', async () => {
    const run = new Scenario(
      await model(
        userTask(
          `<camunda:taskListener event="delete" expression="\${execution.setVariable('deleted', true)}"/>`,
        ),
      ),
    ).start({});
    run.send({ type: 'cancel' });
    assert.equal(run.variables().deleted, true);
  });
});

void describe('execution listeners in the engine', () => {
  void test('start and end listeners run as the element is entered and completes, setting variables', async () => {
    const run = new Scenario(
      await model(
        userTask(
          `<camunda:executionListener event="start" expression="\${execution.setVariable('order', 'start')}"/>
           <camunda:executionListener event="end" expression="\${execution.setVariable('order', order.concat('-end'))}"/>`,
        ),
      ),
    ).start({});
    assert.equal(run.variables().order, 'start');
    run.complete('u');
    assert.equal(run.variables().order, 'start-end');
    assert.equal(run.state.status, 'completed');
  });
});

void describe('execution listeners on gateways and flows', () => {
  void test('a gateway runs its start and end listeners and the taken flow its take listener', async () => {
    const result = await compileBpmn(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:exclusiveGateway id="g" default="f3"><bpmn:extensionElements>
      <camunda:executionListener event="start" expression="\${execution.setVariable('log', 'g-start')}"/>
      <camunda:executionListener event="end" expression="\${execution.setVariable('log', log.concat(',g-end'))}"/>
    </bpmn:extensionElements></bpmn:exclusiveGateway>
    <bpmn:endEvent id="e1"/>
    <bpmn:endEvent id="e2"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
    <bpmn:sequenceFlow id="f2" sourceRef="g" targetRef="e1"><bpmn:conditionExpression>\${go}</bpmn:conditionExpression><bpmn:extensionElements>
      <camunda:executionListener expression="\${execution.setVariable('log', log.concat(',f2'))}"/>
    </bpmn:extensionElements></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f3" sourceRef="g" targetRef="e2"/>
  </bpmn:process>
</bpmn:definitions>`);
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const run = new Scenario(result.processes[0] as ProcessModel).start({ go: true });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().log, 'g-start,g-end,f2');
  });
});
