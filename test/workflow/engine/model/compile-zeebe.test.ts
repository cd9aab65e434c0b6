import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileOne, element, fixture } from './helpers.js';

void describe('Zeebe-flavoured model (zeebe-claim.bpmn)', async () => {
  const model = await compileOne(fixture('zeebe-claim.bpmn'));

  void test('an unnamed process is named by its key; start events are grouped by kind', () => {
    assert.equal(model.name, 'claim');
    assert.deepEqual(model.startEventIds, { none: ['start'], timer: ['nightly'], message: [], signal: [] });
    assert.deepEqual(element(model, 'nightly', 'startEvent').eventDefinition, {
      kind: 'timer',
      timer: { kind: 'cycle', value: '0 0 2 * * ?', isExpression: false },
    });
  });

  void test('service task: task definition, retries, headers, io mapping', () => {
    const task = element(model, 'register', 'serviceTask');
    assert.deepEqual(task.job, { topic: 'claim-register', retries: '5', headers: { priority: 'high' } });
    assert.deepEqual(task.inputs, [
      { target: 'amount', expression: 'claim.amount' },
      { target: 'currency', expression: '"EUR"' },
    ]);
    assert.deepEqual(task.outputs, [{ target: 'claim.number', expression: 'claimNumber' }]);
    assert.deepEqual(task.incoming, ['f1', 'f1b']);
  });

  void test('business rule task: zeebe:calledDecision', () => {
    assert.deepEqual(element(model, 'assess', 'businessRuleTask').decision, {
      decisionId: 'claim-risk',
      binding: 'latest',
      version: null,
      mapDecisionResult: null,
      resultVariable: 'risk',
    });
  });

  void test('script task: zeebe:script is a FEEL script', () => {
    const task = element(model, 'total', 'scriptTask');
    assert.deepEqual(task.script, { format: 'feel', text: 'sum(items.amount)' });
    assert.equal(task.resultVariable, 'totalAmount');
  });

  void test('user task: assignment definition, schedule, form, loop characteristics', () => {
    const task = element(model, 'approve', 'userTask');
    assert.equal(task.assignee, 'claim.owner');
    assert.equal(task.candidateGroups, '["adjusters", "seniors"]');
    assert.equal(task.dueDate, 'now() + duration("P2D")');
    assert.equal(task.formKey, 'camunda-forms:bpmn:approve');
    assert.deepEqual(task.multiInstance, {
      isSequential: false,
      inputCollection: 'approvers',
      inputElement: 'approver',
      outputCollection: 'decisions',
      outputElement: 'decision',
      loopCardinality: null,
      completionCondition: null,
    });
  });

  void test('call activity: zeebe:calledElement with variable propagation', () => {
    assert.deepEqual(element(model, 'payout', 'callActivity').calledElement, {
      processKey: 'claim-payout',
      binding: 'latest',
      version: null,
      propagateAllChildVariables: false,
      propagateAllParentVariables: true,
    });
  });

  void test('event-based gateway leads to a receive task and a timer catch', () => {
    assert.deepEqual(element(model, 'waitFor', 'eventBasedGateway').outgoing, ['f5', 'f6']);
    const receive = element(model, 'docs', 'receiveTask');
    assert.equal(receive.messageName, 'documents-received');
    assert.equal(receive.correlationKey, '= claimId');
    assert.deepEqual(element(model, 'deadline', 'intermediateCatchEvent').eventDefinition, {
      kind: 'timer',
      timer: { kind: 'duration', value: 'P14D', isExpression: false },
    });
  });

  void test('signal end event takes the signal name', () => {
    assert.deepEqual(element(model, 'expired', 'endEvent').eventDefinition, {
      kind: 'signal',
      signalName: 'claims-closed',
    });
  });

  void test('event sub-process: non-interrupting message start, children and scope', () => {
    const sub = element(model, 'onCancel', 'subProcess');
    assert.equal(sub.triggeredByEvent, true);
    assert.deepEqual(sub.startEventIds, ['cancelStart']);
    assert.deepEqual(sub.childIds, ['cancelStart', 'cancelEnd']);
    assert.deepEqual(model.eventSubProcessIds, ['onCancel']);
    const start = element(model, 'cancelStart', 'startEvent');
    assert.equal(start.isInterrupting, false);
    assert.equal(start.parentId, 'onCancel');
    assert.deepEqual(start.eventDefinition, {
      kind: 'message',
      messageName: 'claim-cancelled',
      correlationKey: '=claimId',
      job: null,
    });
    assert.equal(model.flows.c1?.sourceId, 'cancelStart');
  });
});
