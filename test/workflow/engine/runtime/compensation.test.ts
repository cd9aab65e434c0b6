import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

/** Element ids activated after the compensation throw `throwId`, in order. */
function activatedAfter(run: Scenario, throwId: string): string[] {
  const history = run.history();
  const from = history.findIndex((e) => e.kind === 'compensationThrown' && e.elementId === throwId);
  assert.ok(from >= 0, `no compensation thrown by '${throwId}'`);
  return history.slice(from).flatMap((e) => (e.kind === 'elementActivated' ? [e.elementId] : []));
}

void describe('compensation of tasks (compensation.bpmn, after Camunda 7 example)', async () => {
  const model = await loadModel('compensation.bpmn');

  const booked = () => new Scenario(model).start().complete('bookHotel').complete('chargeCard');

  void test('given both bookings completed, when everything is undone, then refund runs before cancel hotel', () => {
    const run = booked().complete('review', { undo: 'all' });
    assert.deepEqual(run.openWaits(), ['refund'], 'one handler at a time, last completed first');
    assert.deepEqual(run.tokens(), ['refund', 'undoAll'], 'the throw waits for its handlers');
    run.complete('refund');
    assert.deepEqual(run.openWaits(), ['cancelHotel']);
    run.complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undoAll'), ['refund', 'cancelHotel', 'undoneAll']);
    const thrown = run.history().find((e) => e.kind === 'compensationThrown');
    assert.deepEqual(thrown?.data, { activityRef: null, activities: ['chargeCard', 'bookHotel'] });
  });

  void test('given both bookings completed, when the end event names bookHotel, then only cancel hotel runs', () => {
    const run = booked().complete('review', { undo: 'hotel' });
    assert.deepEqual(run.openWaits(), ['cancelHotel']);
    run.complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undoHotel'), ['cancelHotel']);
    assert.ok(!run.historyOf('elementActivated').includes('refund'));
  });

  void test('given the charge is declined, when compensation is thrown, then only the completed hotel booking is undone', () => {
    const run = new Scenario(model).start().complete('bookHotel');
    run.send({ type: 'bpmnError', waitId: run.wait('chargeCard').waitId, errorCode: 'DECLINED' });
    assert.deepEqual(run.openWaits(), ['cancelHotel']);
    run.complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undoAfterDecline'), ['cancelHotel', 'declinedEnd']);
  });

  void test('given nothing is undone, when the process ends, then no handler ran and the subscriptions are gone', () => {
    const run = booked();
    assert.deepEqual(
      run.state.compensation?.subscriptions.map((s) => s.activityId),
      ['bookHotel', 'chargeCard'],
      'completed compensable activities are remembered',
    );
    run.complete('review', { undo: 'none' });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.state.compensation, undefined);
    assert.ok(!run.historyOf('elementActivated').includes('refund'));
  });

  void test('given a throw waits for a handler, when the instance is cancelled, then the handler is withdrawn', () => {
    const run = booked().complete('review', { undo: 'all' });
    run.send({ type: 'cancel' });
    assert.equal(run.state.status, 'cancelled');
    assert.ok(run.historyOf('elementTerminated').includes('refund'));
  });

  void test('given an activity was compensated, then it is no longer remembered, so it is never compensated twice', () => {
    const run = booked().complete('review', { undo: 'hotel' });
    assert.deepEqual(
      run.state.compensation?.subscriptions.map((s) => s.activityId),
      ['chargeCard'],
      'the compensated activity left the subscriptions',
    );
  });
});
