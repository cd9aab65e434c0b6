import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem, compileOne, compileProblems, definitions, element } from './helpers.js';

const job = (topic: string) =>
  `<bpmn:extensionElements><zeebe:taskDefinition type="${topic}"/></bpmn:extensionElements>`;

// start → work ⟲(undo) → then → end, plus whatever `extra` adds.
const compensable = (
  extra: string,
  handler = `<bpmn:serviceTask id="refund" isForCompensation="true">${job('refund')}</bpmn:serviceTask>`,
) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:serviceTask id="work">${job('work')}</bpmn:serviceTask>
    <bpmn:boundaryEvent id="undo" attachedToRef="work"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    ${handler}
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    ${extra}`);

void test('a compensation handler associated with a compensation boundary event compiles onto its activity', async () => {
  const model = await compileOne(
    compensable(`<bpmn:intermediateThrowEvent id="comp"><bpmn:compensateEventDefinition activityRef="work"/></bpmn:intermediateThrowEvent>
      <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="comp"/><bpmn:sequenceFlow id="f3" sourceRef="comp" targetRef="e"/>
      <bpmn:association id="a" sourceRef="undo" targetRef="refund"/>`),
  );
  assert.equal(element(model, 'work', 'serviceTask').compensationHandlerId, 'refund');
  assert.equal(element(model, 'refund', 'serviceTask').isForCompensation, true);
  assert.deepEqual(element(model, 'comp', 'intermediateThrowEvent').eventDefinition, {
    kind: 'compensate',
    activityRef: 'work',
    waitForCompletion: true,
  });
});

void test('a compensation boundary event without a handler, and a handler nothing attaches, are problems', async () => {
  const problems = await compileProblems(
    compensable(`<bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>`),
  );
  assertProblem(problems, 'undo', /needs exactly one association to a compensation handler/);
  assertProblem(problems, 'refund', /is not associated with a compensation boundary event/);
});

void test('an association to an activity that is not a handler, and a handler with flows, are problems', async () => {
  const notHandler = await compileProblems(
    compensable(
      `<bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:association id="a" sourceRef="undo" targetRef="refund"/>`,
      `<bpmn:serviceTask id="refund">${job('refund')}</bpmn:serviceTask>`,
    ),
  );
  assertProblem(notHandler, 'undo', /'refund', which is not an activity with isForCompensation="true"/);
  const withFlow = await compileProblems(
    compensable(`<bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:sequenceFlow id="f3" sourceRef="refund" targetRef="e"/>
      <bpmn:association id="a" sourceRef="undo" targetRef="refund"/>`),
  );
  assertProblem(withFlow, 'refund', /must not have incoming or outgoing sequence flows/);
});

void test('a compensation throw naming something other than an activity of its scope is a problem', async () => {
  const problems = await compileProblems(
    compensable(`<bpmn:endEvent id="comp"><bpmn:compensateEventDefinition activityRef="s"/></bpmn:endEvent>
      <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="comp"/><bpmn:association id="a" sourceRef="undo" targetRef="refund"/>`),
  );
  assertProblem(problems, 'comp', /names activity 's', which is not an activity of the scope it compensates/);
});

void test('a compensation event sub-process is only allowed inside a sub-process', async () => {
  const problems = await compileProblems(
    definitions(`<bpmn:startEvent id="s"/><bpmn:endEvent id="e"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
      <bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="cs"><bpmn:compensateEventDefinition/></bpmn:startEvent>
      <bpmn:endEvent id="ce"/><bpmn:sequenceFlow id="f2" sourceRef="cs" targetRef="ce"/></bpmn:subProcess>`),
  );
  assertProblem(problems, 'cs', /only allowed in an event sub-process of a sub-process/);
});

// start → tx (transaction: ts → cancel end) → end; `boundary` is put on tx.
const transaction = (
  boundary: string,
  inner = '<bpmn:endEvent id="cancelEnd"><bpmn:cancelEventDefinition/></bpmn:endEvent>',
) =>
  definitions(`<bpmn:startEvent id="s"/><bpmn:transaction id="tx"><bpmn:startEvent id="ts"/>${inner}
      <bpmn:sequenceFlow id="t1" sourceRef="ts" targetRef="cancelEnd"/></bpmn:transaction>${boundary}
    <bpmn:endEvent id="e"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="tx"/><bpmn:sequenceFlow id="f2" sourceRef="tx" targetRef="e"/>`);

void test('a transaction compiles as a sub-process marked as a transaction', async () => {
  const model = await compileOne(
    transaction(
      `<bpmn:boundaryEvent id="onCancel" attachedToRef="tx"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>`,
    ),
  );
  const tx = element(model, 'tx', 'subProcess');
  assert.equal(tx.isTransaction, true);
  assert.deepEqual(tx.childIds, ['ts', 'cancelEnd']);
  assert.deepEqual(element(model, 'onCancel', 'boundaryEvent').eventDefinition, { kind: 'cancel' });
});

void test('a cancel end event needs a cancel boundary event on its transaction', async () => {
  const problems = await compileProblems(transaction(''));
  assertProblem(problems, 'cancelEnd', /needs a cancel boundary event on transaction 'tx'/);
});

void test('cancel events outside a transaction are problems', async () => {
  const end = await compileProblems(
    definitions(`<bpmn:startEvent id="s"/><bpmn:subProcess id="sub"><bpmn:startEvent id="ss"/>
      <bpmn:endEvent id="cancelEnd"><bpmn:cancelEventDefinition/></bpmn:endEvent><bpmn:sequenceFlow id="t1" sourceRef="ss" targetRef="cancelEnd"/></bpmn:subProcess>
      <bpmn:boundaryEvent id="onCancel" attachedToRef="sub"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>`),
  );
  assertProblem(end, 'cancelEnd', /only allowed directly inside a transaction/);
  assertProblem(end, 'onCancel', /only allowed on a transaction/);
  const nonInterrupting = await compileProblems(
    transaction(
      `<bpmn:boundaryEvent id="onCancel" attachedToRef="tx" cancelActivity="false"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>`,
    ),
  );
  assertProblem(nonInterrupting, 'onCancel', /must interrupt its transaction/);
});

void test('a compensation handler with a boundary event is a problem', async () => {
  const problems = await compileProblems(
    compensable(`<bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:association id="a" sourceRef="undo" targetRef="refund"/>
      <bpmn:boundaryEvent id="late" attachedToRef="refund"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`),
  );
  assertProblem(problems, 'refund', /must not have boundary events/);
});

void test('a transaction with two cancel boundary events is a problem', async () => {
  const problems = await compileProblems(
    transaction(`<bpmn:boundaryEvent id="c1" attachedToRef="tx"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>
      <bpmn:boundaryEvent id="c2" attachedToRef="tx"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>`),
  );
  assertProblem(problems, 'c2', /transaction 'tx' has more than one cancel boundary event/);
});

void test('a compensation throw naming an activity that does not exist is a problem, not a throw for the whole scope', async () => {
  const problems = await compileProblems(
    compensable(`<bpmn:endEvent id="comp"><bpmn:compensateEventDefinition activityRef="nowhere"/></bpmn:endEvent>
      <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="comp"/><bpmn:association id="a" sourceRef="undo" targetRef="refund"/>`),
  );
  assertProblem(problems, 'comp', /compensation event 'comp' names activity 'nowhere', which does not exist/);
});
