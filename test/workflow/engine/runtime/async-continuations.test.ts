import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBpmn, type ProcessModel } from '../../../../src/workflow/engine/model/index.js';
import { Scenario } from './helpers.js';

const definitions = (process: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">${process}</bpmn:process>
</bpmn:definitions>`;

const compile = async (process: string): Promise<ProcessModel> => {
  const result = await compileBpmn(definitions(process));
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return result.processes[0] as ProcessModel;
};

// start → task t (with the given attributes and extension elements) → end
const around = (attributes: string, extensions = '', type = 'task') => `
  <bpmn:startEvent id="s"/>
  <bpmn:${type} id="t" ${attributes}><bpmn:extensionElements>${extensions}</bpmn:extensionElements></bpmn:${type}>
  <bpmn:endEvent id="e"/>
  <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
  <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>`;

const listenersOf = (element: string) => `
  <camunda:executionListener event="start" expression="\${execution.setVariable('${element}Started', true)}"/>
  <camunda:executionListener event="end" expression="\${execution.setVariable('${element}Ended', true)}"/>`;

void describe('asynchronous continuations in the engine', () => {
  void test('asyncBefore stops the token before the input mappings and start listeners; the job runs them', async () => {
    const run = new Scenario(
      await compile(
        around(
          'camunda:asyncBefore="true"',
          `${listenersOf('t')}<camunda:inputOutput><camunda:inputParameter name="local">\${1 + 1}</camunda:inputParameter></camunda:inputOutput>`,
        ),
      ),
    ).start({});
    const job = run.wait('t');
    assert.equal(job.kind, 'continuation');
    assert.ok(job.kind === 'continuation');
    assert.deepEqual(job.then, { kind: 'enter' });
    assert.deepEqual(job.retry, { retries: 2, intervalsMs: [0] }, "Camunda's default: three attempts");
    assert.equal(run.variables().tStarted, undefined, 'no start listener before the job');
    assert.deepEqual(run.historyOf('elementActivated'), ['s'], 't is not activated before the job');

    run.send({ type: 'complete', waitId: job.waitId });
    assert.equal(run.variables().tStarted, true);
    assert.equal(run.variables().tEnded, true);
    assert.deepEqual(run.historyOf('elementCompleted'), ['s', 't', 'e']);
    assert.equal(run.state.status, 'completed');
  });

  void test('asyncAfter stops after the end listeners and before the outgoing flows; the job leaves', async () => {
    const run = new Scenario(
      await compile(around('camunda:asyncAfter="true"', listenersOf('t'), 'userTask')),
    ).start({});
    run.complete('t');
    const job = run.wait('t');
    assert.ok(job.kind === 'continuation');
    assert.deepEqual(job.then, { kind: 'leave' });
    assert.equal(run.variables().tEnded, true, 'the end listener ran before the job');
    assert.deepEqual(run.historyOf('elementCompleted'), ['s', 't']);
    assert.deepEqual(run.historyOf('flowTaken'), ['f1'], 'f2 is not taken before the job');

    run.send({ type: 'complete', waitId: job.waitId });
    assert.deepEqual(run.historyOf('flowTaken'), ['f1', 'f2']);
    assert.equal(run.state.status, 'completed');
  });

  void test('the older camunda:async means asyncBefore; a start event with asyncAfter commits the start first', async () => {
    const run = new Scenario(
      await compile(`
        <bpmn:startEvent id="s" camunda:asyncAfter="true"/>
        <bpmn:task id="t" camunda:async="true"/>
        <bpmn:endEvent id="e"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
        <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>`),
    ).start({});
    const afterStart = run.wait('s');
    assert.ok(afterStart.kind === 'continuation');
    assert.deepEqual(afterStart.then, { kind: 'leave' });
    run.send({ type: 'complete', waitId: afterStart.waitId });
    const beforeTask = run.wait('t');
    assert.ok(beforeTask.kind === 'continuation');
    assert.deepEqual(beforeTask.then, { kind: 'enter' });
    run.send({ type: 'complete', waitId: beforeTask.waitId });
    assert.equal(run.state.status, 'completed');
  });

  void test('asyncAfter on a gateway: the flows are chosen first, the job takes them', async () => {
    const run = new Scenario(
      await compile(`
        <bpmn:startEvent id="s"/>
        <bpmn:exclusiveGateway id="g" camunda:asyncAfter="true" default="toNo"/>
        <bpmn:endEvent id="yes"/>
        <bpmn:endEvent id="no"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
        <bpmn:sequenceFlow id="toYes" sourceRef="g" targetRef="yes"><bpmn:conditionExpression>\${approved}</bpmn:conditionExpression></bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="toNo" sourceRef="g" targetRef="no"/>`),
    ).start({ approved: true });
    const job = run.wait('g');
    assert.ok(job.kind === 'continuation');
    assert.deepEqual(job.then, { kind: 'take', flowIds: ['toYes'] });
    // A change after the decision does not change the path the gateway chose.
    run.send({ type: 'setVariables', variables: { approved: false } });
    run.send({ type: 'complete', waitId: job.waitId });
    assert.deepEqual(run.historyOf('instanceEnded').length, 1);
    assert.ok(run.historyOf('elementCompleted').includes('yes'));
    assert.ok(!run.historyOf('elementCompleted').includes('no'));
  });

  void test('on the loop characteristics: a job before and after each instance; on the element: around the body', async () => {
    const run = new Scenario(
      await compile(
        around(
          'camunda:asyncBefore="true"',
          `</bpmn:extensionElements><bpmn:multiInstanceLoopCharacteristics isSequential="true" camunda:asyncBefore="true" camunda:asyncAfter="true"><bpmn:loopCardinality>2</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements>`,
        ),
      ),
    ).start({});
    const steps: string[] = [];
    for (let guard = 0; guard < 20 && run.state.status !== 'completed'; guard++) {
      const [wait] = run.waitsAt('t');
      assert.ok(wait !== undefined && wait.kind === 'continuation', `a continuation at t (step ${guard})`);
      const token = run.state.tokens[wait.tokenId];
      steps.push(`${wait.then.kind}${token?.loopCounter === null ? ' body' : ` #${token?.loopCounter}`}`);
      run.send({ type: 'complete', waitId: wait.waitId });
    }
    assert.deepEqual(steps, ['enter body', 'enter #0', 'leave #0', 'enter #1', 'leave #1']);
    assert.equal(run.state.status, 'completed');
  });

  void test('a job that fails for a reason outside the model: an incident whose retry opens the job again', async () => {
    const run = new Scenario(await compile(around('camunda:asyncBefore="true"'))).start({});
    const job = run.wait('t');
    run.send({ type: 'fail', waitId: job.waitId, message: 'database went away' });
    const [incident] = run.incidents();
    assert.ok(incident !== undefined);
    assert.equal(incident.kind, 'jobFailed');
    assert.equal(incident.message, 'database went away');
    assert.deepEqual(run.openWaits(), []);

    run.send({ type: 'retryIncident', incidentId: incident.incidentId });
    const again = run.wait('t');
    assert.ok(again.kind === 'continuation');
    assert.deepEqual(again.then, { kind: 'enter' });
    run.send({ type: 'complete', waitId: again.waitId });
    assert.equal(run.state.status, 'completed');
  });

  void test('a continuation job takes no variables; cancelling the instance closes it', async () => {
    const run = new Scenario(await compile(around('camunda:asyncBefore="true"'))).start({});
    const job = run.wait('t');
    const refused = run.try({ type: 'complete', waitId: job.waitId, variables: { x: 1 } });
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, 'notApplicable');
    run.send({ type: 'cancel' });
    assert.deepEqual(
      run.effectsOf('waitClosed').map((effect) => [effect.kind, effect.reason]),
      [['continuation', 'cancelled']],
    );
  });

  void test('a timer event with failedJobRetryTimeCycle runs what follows its firing in a continuation job with the cycle', async () => {
    const cycle =
      '<bpmn:extensionElements><camunda:failedJobRetryTimeCycle>R4/PT30S</camunda:failedJobRetryTimeCycle></bpmn:extensionElements>';
    const run = new Scenario(
      await compile(`
        <bpmn:startEvent id="s"/>
        <bpmn:intermediateCatchEvent id="wait">${cycle}<bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
        <bpmn:userTask id="u"/>
        <bpmn:boundaryEvent id="late" attachedToRef="u">${cycle}<bpmn:timerEventDefinition><bpmn:timeDuration>PT2H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:endEvent id="e"/>
        <bpmn:endEvent id="lateEnd"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
        <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="u"/>
        <bpmn:sequenceFlow id="f3" sourceRef="u" targetRef="e"/>
        <bpmn:sequenceFlow id="f4" sourceRef="late" targetRef="lateEnd"/>`),
    ).start({});
    assert.equal(run.wait('wait').kind, 'timer', 'the token waits for the timer, not for a job');
    run.complete('wait');
    const afterCatch = run.wait('wait');
    assert.ok(afterCatch.kind === 'continuation');
    assert.deepEqual(afterCatch.then, { kind: 'leave' });
    assert.deepEqual(afterCatch.retry, { retries: 4, intervalsMs: [30_000] });
    run.send({ type: 'complete', waitId: afterCatch.waitId });

    const boundary = run.waitsAt('late');
    assert.equal(boundary.length, 1);
    run.send({ type: 'complete', waitId: boundary[0]?.waitId ?? '' });
    const afterBoundary = run.wait('late');
    assert.ok(afterBoundary.kind === 'continuation');
    assert.deepEqual(afterBoundary.then, { kind: 'leave' });
    assert.deepEqual(run.tokens(), ['late'], 'the interrupting boundary ended the task in the firing call');
    run.send({ type: 'complete', waitId: afterBoundary.waitId });
    assert.equal(run.state.status, 'completed');
    assert.ok(run.historyOf('elementCompleted').includes('lateEnd'));
  });

  void test('a timer event without the cycle goes on in the call that fired it', async () => {
    const run = new Scenario(
      await compile(`
        <bpmn:startEvent id="s"/>
        <bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
        <bpmn:endEvent id="e"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
        <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>`),
    ).start({});
    run.complete('wait');
    assert.equal(run.state.status, 'completed');
  });

  void test("on a boundary event asyncBefore cuts after the event's variables are set, before its flow", async () => {
    const run = new Scenario(
      await compile(`
        <bpmn:startEvent id="s"/>
        <bpmn:userTask id="u"/>
        <bpmn:boundaryEvent id="stop" attachedToRef="u" camunda:asyncBefore="true"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:endEvent id="e"/>
        <bpmn:endEvent id="stopped"/>
        <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
        <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
        <bpmn:sequenceFlow id="f3" sourceRef="stop" targetRef="stopped"/>`),
    ).start({});
    run.complete('stop', { reason: 'customer asked' });
    const job = run.wait('stop');
    assert.ok(job.kind === 'continuation');
    assert.equal(run.variables().reason, 'customer asked');
    assert.deepEqual(run.historyOf('flowTaken'), ['f1']);
    run.send({ type: 'complete', waitId: job.waitId });
    assert.deepEqual(run.historyOf('flowTaken'), ['f1', 'f3']);
  });
});
