import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn, type ProcessModel } from '../../../../src/workflow/engine/model/index.js';
import {
  generateInstructions,
  migrateInstance,
  type ScriptWait,
} from '../../../../src/workflow/engine/runtime/index.js';
import { Scenario, testContext } from './helpers.js';

// The engine's side of JavaScript listeners: each opens a script wait that the driver answers; here
// the test answers it as the sandbox would.

const model = async (process: string): Promise<ProcessModel> => {
  const result = await compileBpmn(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:message id="m" name="stop"/>
  <bpmn:process id="p" isExecutable="true">${process}</bpmn:process>
</bpmn:definitions>`);
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return result.processes[0] as ProcessModel;
};

const js = (event: string, script: string) =>
  `<camunda:executionListener event="${event}"><camunda:script scriptFormat="javascript">${script}</camunda:script></camunda:executionListener>`;
const juel = (event: string, expression: string) =>
  `<camunda:executionListener event="${event}" expression="\${${expression}}"/>`;

// The one open listener script wait (execution listeners, or a task's delete listeners).
const listenerWait = (run: Scenario, name = 'executionListener'): ScriptWait => {
  const waits = Object.values(run.state.waits).filter(
    (wait): wait is ScriptWait => wait.kind === 'script' && wait.extension.name === name,
  );
  assert.equal(waits.length, 1, `open: ${run.openWaits().join(', ')}`);
  return waits[0] as ScriptWait;
};
const answer = (run: Scenario, variables: Record<string, string | number | boolean> = {}, name?: string) =>
  run.send({ type: 'complete', waitId: listenerWait(run, name).waitId, variables });

const task = (listeners: string) => `
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="u"><bpmn:extensionElements>${listeners}</bpmn:extensionElements></bpmn:userTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
    <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>`;

void describe('JavaScript execution listeners in the engine', () => {
  test('start listeners run in model order with expressions: the task opens after the script answered', async () => {
    const run = new Scenario(
      await model(
        task(
          juel('start', "execution.setVariable('log', 'a')") +
            js('start', "execution.setVariable('log', log + ',b')") +
            juel('start', "execution.setVariable('log', log.concat(',c'))"),
        ),
      ),
    ).start({});
    const wait = listenerWait(run);
    assert.equal(wait.elementId, 'u');
    assert.equal(wait.extension.attributes.event, 'start');
    assert.equal(wait.extension.attributes.host, 'u');
    assert.equal(wait.variables.log, 'a', 'the script sees what the expression before it set');
    assert.equal(run.waitsAt('u').length, 1, 'no user task before the script answered');

    answer(run, { log: 'a,b' });
    assert.equal(run.variables().log, 'a,b,c');
    assert.equal(run.wait('u').kind, 'userTask');
  });

  test("with asyncBefore, the start listener runs in the continuation job's call, not the one that reached the task", async () => {
    const run = new Scenario(
      await model(`
        <bpmn:startEvent id="s"/>
        <bpmn:userTask id="u" camunda:asyncBefore="true"><bpmn:extensionElements>${js('start', "execution.setVariable('started', true)")}</bpmn:extensionElements></bpmn:userTask>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>`),
    ).start({});
    const job = run.wait('u');
    assert.equal(job.kind, 'continuation');
    run.send({ type: 'complete', waitId: job.waitId });
    assert.equal(listenerWait(run).extension.attributes.host, 'u');
    answer(run, { started: true });
    assert.equal(run.wait('u').kind, 'userTask');
    assert.equal(run.variables().started, true);
  });

  test('a take listener holds the token on the flow; its answer enters the target', async () => {
    const run = new Scenario(
      await model(`
        <bpmn:startEvent id="s"/>
        <bpmn:userTask id="u"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"><bpmn:extensionElements>${js('take', "execution.setVariable('took', true)")}</bpmn:extensionElements></bpmn:sequenceFlow>`),
    ).start({});
    const wait = listenerWait(run);
    assert.equal(wait.extension.attributes.host, 'f1');
    assert.equal(wait.extension.attributes.event, 'take');
    assert.deepEqual(run.historyOf('elementActivated'), ['s']);
    answer(run, { took: true });
    assert.equal(run.variables().took, true);
    assert.equal(run.wait('u').kind, 'userTask');
  });

  test("the process's end listener runs as the instance completes; the instance ends after its answer", async () => {
    const run = new Scenario(
      await model(`
        <bpmn:extensionElements>${js('end', "execution.setVariable('done', true)")}</bpmn:extensionElements>
        ${task('')}`),
    ).start({});
    run.complete('u');
    assert.equal(run.state.status, 'running');
    assert.equal(listenerWait(run).extension.attributes.hostKind, 'process');
    answer(run, { done: true });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().done, true);
    assert.deepEqual(run.state.waits, {});
  });

  test('a failing process end listener cannot stop the end: it is recorded and the listeners after it run', async () => {
    const run = new Scenario(
      await model(`
        <bpmn:extensionElements>${js('end', 'throw 1') + juel('end', "execution.setVariable('after', true)")}</bpmn:extensionElements>
        ${task('')}`),
    ).start({});
    run.complete('u');
    run.send({ type: 'fail', waitId: listenerWait(run).waitId, message: 'boom' });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.incidents().length, 0);
    assert.equal(run.variables().after, true);
    assert.deepEqual(run.history().find((entry) => entry.kind === 'listenerFailed')?.data, {
      event: 'end',
      message: 'boom',
    });
  });

  test('a failing end listener raises an incident; its retry runs it and the expression after it again, then the task leaves', async () => {
    const run = new Scenario(
      await model(task(js('end', 'check()') + juel('end', "execution.setVariable('ended', true)"))),
    ).start({});
    run.complete('u', { approved: true });
    run.send({ type: 'fail', waitId: listenerWait(run).waitId, message: 'check is not defined' });
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'u');
    assert.equal(incident?.message, 'check is not defined');
    assert.equal(incident?.retry.action, 'executionListeners');
    assert.equal(run.variables().ended, undefined);
    assert.equal(run.variables().approved, true, 'the completion stays');

    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(listenerWait(run).extension.attributes.event, 'end');
    answer(run);
    assert.equal(run.variables().ended, true);
    assert.equal(run.state.status, 'completed');
  });

  test("a process start listener's answer lets the start event run; a gateway's end listener chooses before it", async () => {
    const run = new Scenario(
      await model(`
        <bpmn:extensionElements>${js('start', "execution.setVariable('route', 'b')")}</bpmn:extensionElements>
        <bpmn:startEvent id="s"/>
        <bpmn:exclusiveGateway id="g"><bpmn:extensionElements>${js('end', "execution.setVariable('left', true)")}</bpmn:extensionElements></bpmn:exclusiveGateway>
        <bpmn:userTask id="a"/>
        <bpmn:userTask id="b"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
        <bpmn:sequenceFlow id="fa" sourceRef="g" targetRef="a"><bpmn:conditionExpression>\${route == 'a'}</bpmn:conditionExpression></bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="fb" sourceRef="g" targetRef="b"><bpmn:conditionExpression>\${route == 'b'}</bpmn:conditionExpression></bpmn:sequenceFlow>`),
    ).start({});
    assert.equal(listenerWait(run).extension.attributes.hostKind, 'process');
    assert.deepEqual(run.historyOf('elementActivated'), []);
    answer(run, { route: 'b' });
    assert.equal(listenerWait(run).extension.attributes.host, 'g');
    answer(run, { left: true });
    assert.equal(run.wait('b').kind, 'userTask');
    assert.deepEqual(run.historyOf('gatewayDecision'), ['g']);
  });
});

void describe('failed execution listeners and migration', () => {
  const flowTo = (flowId: string) => `
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="u"/>
    <bpmn:sequenceFlow id="${flowId}" sourceRef="s" targetRef="u"><bpmn:extensionElements>${js('take', 'x')}</bpmn:extensionElements></bpmn:sequenceFlow>`;

  test("an instance whose take listener failed migrates only to a version that has the listener's flow", async () => {
    const v1 = await model(flowTo('f1'));
    const run = new Scenario(v1).start({});
    run.send({ type: 'fail', waitId: listenerWait(run).waitId, message: 'x is not defined' });
    assert.equal(run.incidents()[0]?.elementId, 'u');
    const migrate = (target: ProcessModel) =>
      migrateInstance({
        source: v1,
        target,
        state: run.state,
        instructions: generateInstructions(v1, target),
        ctx: testContext(),
      });

    const refused = migrate(await model(flowTo('other')));
    assert.ok(!refused.ok);
    assert.match(
      refused.problems.map((p) => p.message).join('\n'),
      /the failed execution listener of 'u' goes on by the flow 'f1', which the target does not have/,
    );
    const same = migrate(await model(flowTo('f1')));
    assert.ok(same.ok, JSON.stringify(!same.ok && same.problems));
  });
});

void describe('JavaScript delete listeners in the engine', () => {
  const deleting = task(
    '<camunda:taskListener event="delete"><camunda:script scriptFormat="javascript">task.setVariable(\'deleted\', true)</camunda:script></camunda:taskListener>' +
      '<camunda:taskListener event="delete" expression="${task.setVariable(\'after\', deleted)}"/>',
  );

  test('cancelling the instance ends it at once; the listener runs after, and what it and the expression after it set stays', async () => {
    const run = new Scenario(await model(deleting)).start({ n: 1 });
    run.send({ type: 'cancel' });
    assert.equal(run.state.status, 'cancelled');
    const wait = listenerWait(run, 'taskListener');
    assert.equal(wait.extension.attributes.event, 'delete');
    assert.equal(wait.deleteListener?.task.elementId, 'u');
    assert.equal(wait.variables.n, 1);
    answer(run, { deleted: true }, 'taskListener');
    assert.equal(run.variables().deleted, true);
    assert.equal(run.variables().after, true);
    assert.deepEqual(run.state.waits, {});
    assert.equal(run.state.status, 'cancelled');
  });

  test('an interrupting message boundary withdraws the task; a failing delete listener is recorded, raises no incident and the rest run', async () => {
    const run = new Scenario(
      await model(`${deleting}
        <bpmn:boundaryEvent id="b" attachedToRef="u"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>
        <bpmn:userTask id="after"/>
        <bpmn:sequenceFlow id="f3" sourceRef="b" targetRef="after"/>`),
    ).start({ deleted: 'no' });
    run.complete('b');
    assert.equal(run.wait('after').kind, 'userTask', 'the boundary path went on without waiting');
    run.send({ type: 'fail', waitId: listenerWait(run, 'taskListener').waitId, message: 'nope' });
    assert.equal(run.incidents().length, 0);
    assert.equal(run.variables().after, 'no', 'the expression after it ran');
    assert.deepEqual(run.history().find((entry) => entry.kind === 'listenerFailed')?.data, {
      event: 'delete',
      message: 'nope',
    });
  });

  test('an ended instance accepts the answer of a delete listener only', async () => {
    const run = new Scenario(await model(deleting)).start({});
    run.send({ type: 'cancel' });
    const refused = run.try({ type: 'setVariables', variables: { x: 1 } });
    assert.ok(!refused.ok && refused.error.code === 'instanceEnded');
  });
});
