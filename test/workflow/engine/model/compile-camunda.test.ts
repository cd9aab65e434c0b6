import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileOne, element, fixture } from './helpers.js';

void describe('Camunda-flavoured model (camunda-order.bpmn)', async () => {
  const model = await compileOne(fixture('camunda-order.bpmn'));

  void test('names the process and finds its start event', () => {
    assert.equal(model.processKey, 'order');
    assert.equal(model.name, 'Order handling');
    assert.deepEqual(model.startEventIds, { none: ['start'], timer: [], message: [], signal: [] });
    assert.equal(element(model, 'start', 'startEvent').name, 'Order placed');
  });

  void test('service task: external topic and input/output parameters as FEEL', () => {
    const task = element(model, 'reserve', 'serviceTask');
    assert.deepEqual(task.job, { topic: 'stock-reserve', retries: null, headers: {} });
    assert.deepEqual(task.inputs, [
      { target: 'sku', expression: 'order.sku' },
      { target: 'warehouse', expression: '"north"' },
    ]);
    assert.deepEqual(task.outputs, [{ target: 'reserved', expression: 'result.count > 0' }]);
    assert.deepEqual(task.incoming, ['f1']);
    assert.deepEqual(task.outgoing, ['f2']);
    assert.equal(task.parentId, 'order');
  });

  void test('business rule task: decision reference with binding, version and result mapping', () => {
    assert.deepEqual(element(model, 'classify', 'businessRuleTask').decision, {
      decisionId: 'order-class',
      binding: 'version',
      version: '3',
      mapDecisionResult: 'singleEntry',
      resultVariable: 'orderClass',
    });
  });

  void test('exclusive gateway: FEEL conditions, "=" stripped, and the default flow', () => {
    assert.equal(element(model, 'route', 'exclusiveGateway').defaultFlowId, 'toReview');
    assert.equal(model.flows.toScore?.condition, 'orderClass = "A"');
    assert.equal(model.flows.toReject?.condition, 'orderClass = "X"');
    assert.equal(model.flows.toReview?.condition, null);
    assert.equal(model.flows.toReview?.isDefault, true);
    assert.equal(model.flows.toScore?.isDefault, false);
  });

  void test('script task: FEEL script and camunda:resultVariable', () => {
    const task = element(model, 'score', 'scriptTask');
    assert.deepEqual(task.script, { format: 'feel', text: 'order.total * 0.1' });
    assert.equal(task.resultVariable, 'score');
    assert.equal(task.job, null);
  });

  void test('user task: assignment as FEEL, candidate groups as a FEEL list, multi-instance', () => {
    const task = element(model, 'review', 'userTask');
    assert.equal(task.assignee, '"demo"');
    assert.equal(task.candidateGroups, '["sales", "management"]');
    assert.equal(task.candidateUsers, null);
    assert.equal(task.formKey, 'embedded:app:forms/review.html');
    assert.equal(task.dueDate, '"2030-01-01T00:00:00Z"');
    assert.deepEqual(task.multiInstance, {
      isSequential: true,
      inputCollection: 'reviewers',
      inputElement: 'reviewer',
      outputCollection: null,
      outputElement: null,
      loopCardinality: null,
      completionCondition: 'nrOfCompletedInstances >= 2',
    });
    assert.deepEqual(task.boundaryEventIds, ['remind']);
  });

  void test('non-interrupting timer boundary event with a cycle', () => {
    const boundary = element(model, 'remind', 'boundaryEvent');
    assert.equal(boundary.attachedTo, 'review');
    assert.equal(boundary.cancelActivity, false);
    assert.deepEqual(boundary.eventDefinition, {
      kind: 'timer',
      timer: { kind: 'cycle', value: 'R3/PT1H', isExpression: false },
    });
  });

  void test('call activity: called element, binding, camunda:in/out as mappings', () => {
    const call = element(model, 'ship', 'callActivity');
    assert.deepEqual(call.calledElement, {
      processKey: 'shipping',
      binding: 'deployment',
      version: null,
      propagateAllChildVariables: false,
      propagateAllParentVariables: false,
    });
    assert.deepEqual(call.inputs, [
      { target: 'id', expression: 'orderId' },
      { target: 'address', expression: 'order.address' },
    ]);
    assert.deepEqual(call.outputs, [{ target: 'tracking', expression: 'trackingNumber' }]);
  });

  void test('message catch event takes its name from the referenced message', () => {
    assert.deepEqual(element(model, 'waitPayment', 'intermediateCatchEvent').eventDefinition, {
      kind: 'message',
      messageName: 'payment-received',
      correlationKey: null,
      job: null,
    });
  });

  void test('error end event takes the code from the referenced error', () => {
    assert.deepEqual(element(model, 'rejected', 'endEvent').eventDefinition, {
      kind: 'error',
      errorCode: 'ORDER_REJECTED',
      errorName: 'Rejected',
    });
  });

  void test('the model is plain JSON data', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(model)), model);
  });
});
