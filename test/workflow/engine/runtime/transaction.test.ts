import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('transaction sub-process (transaction.bpmn, after Camunda 7 example)', async () => {
  const model = await loadModel('transaction.bpmn');

  const charged = (result: string) =>
    new Scenario(model).start().complete('bookHotel').complete('chargeCard', { result });

  void test('given the transaction ends normally, then it completes like a sub-process and nothing is compensated', () => {
    const run = charged('ok').complete('watch');
    assert.deepEqual(run.openWaits(), ['confirm']);
    const subscriptions = run.state.compensation?.subscriptions ?? [];
    const transaction = subscriptions.find((s) => s.activityId === 'booking');
    assert.ok(
      transaction !== undefined,
      'the completed transaction stays compensable while the process runs',
    );
    assert.deepEqual(
      subscriptions.filter((s) => s.scopeId === transaction.localScopeId).map((s) => s.activityId),
      ['bookHotel', 'chargeCard'],
      'with what completed inside it',
    );
    run.complete('confirm');
    assert.equal(run.state.status, 'completed');
    assert.ok(!run.historyOf('elementActivated').includes('refund'));
  });

  void test('given a cancel end event is reached, then the rest of the transaction ends, its activities are compensated in reverse order, and the token leaves by the cancel boundary', () => {
    const run = charged('cancel');
    assert.ok(run.historyOf('elementTerminated').includes('watch'), 'the parallel task was ended first');
    assert.deepEqual(run.openWaits(), ['refund']);
    run.complete('refund');
    assert.deepEqual(run.openWaits(), ['cancelHotel']);
    run.complete('cancelHotel');
    assert.deepEqual(run.openWaits(), ['notifyCancelled']);
    const order = run
      .history()
      .filter((e) => ['cancelled', 'refund', 'cancelHotel', 'onCancel', 'booking'].includes(e.elementId))
      .map((e) => `${e.kind}:${e.elementId}`);
    assert.deepEqual(order, [
      'elementActivated:booking',
      'elementActivated:cancelled',
      'compensationThrown:cancelled',
      'elementActivated:refund',
      'elementCompleted:refund',
      'elementActivated:cancelHotel',
      'elementCompleted:cancelHotel',
      'elementCompleted:cancelled',
      'elementTerminated:booking',
      'elementActivated:onCancel',
      'elementCompleted:onCancel',
    ]);
    run.complete('notifyCancelled');
    assert.equal(run.state.status, 'completed');
    assert.ok(!run.historyOf('elementActivated').includes('confirm'));
  });

  void test('given a hazard (an error end event) in the transaction, then it is interrupted without compensation and the error boundary catches it', () => {
    const run = charged('hazard');
    assert.deepEqual(run.openWaits(), ['handleHazard']);
    assert.ok(!run.historyOf('elementActivated').includes('refund'));
    assert.ok(!run.historyOf('elementActivated').includes('cancelHotel'));
    assert.equal(run.state.compensation?.subscriptions.length ?? 0, 0, 'what completed inside is forgotten');
  });

  void test('given a worker reports an error inside the transaction, then it is a hazard too', () => {
    const run = new Scenario(model).start().complete('bookHotel');
    run.send({ type: 'bpmnError', waitId: run.wait('chargeCard').waitId, errorCode: 'FATAL' });
    assert.deepEqual(run.openWaits(), ['handleHazard']);
    assert.ok(!run.historyOf('elementActivated').includes('cancelHotel'));
  });
});
