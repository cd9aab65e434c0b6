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
    assert.deepEqual(
      run.historyOf('elementTerminated').filter((id) => id === 'refund'),
      ['refund'],
      'terminated once, with its throw',
    );
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

void describe('compensation of completed sub-processes (compensation-sub-process.bpmn)', async () => {
  const model = await loadModel('compensation-sub-process.bpmn');

  const reviewed = () =>
    new Scenario(model)
      .start({ id: '7' })
      .complete('bookHotel')
      .complete('bookFlight')
      .complete('notify')
      .complete('review', { undo: true });

  void test('given a completed nested booking, when everything is undone, then inner activities are compensated recursively, last completed first', () => {
    const run = reviewed();
    assert.deepEqual(run.openWaits(), ['retract']);
    run.complete('retract');
    assert.deepEqual(run.openWaits(), ['cancelFlight'], 'the nested sub-process completed after bookHotel');
    run.complete('cancelFlight');
    assert.deepEqual(run.openWaits(), ['cancelHotel']);
    run.complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undoAll'), ['retract', 'cancelFlight', 'cancelHotel']);
  });

  void test('given the sub-process had a local variable, when its activity is compensated, then the handler sees the value it had at completion', () => {
    const run = reviewed().complete('retract');
    const flight = run.wait('cancelFlight');
    assert.ok(flight.kind === 'externalTask');
    assert.equal(
      flight.variables.bookingRef,
      'B-7',
      'the ended sub-process scope is recreated from its snapshot',
    );
    run.complete('cancelFlight');
    const hotel = run.wait('cancelHotel');
    assert.ok(hotel.kind === 'externalTask');
    assert.equal(hotel.variables.bookingRef, 'B-7');
    run.complete('cancelHotel');
    assert.equal(Object.keys(run.state.scopes).length, 1, 'recreated scopes are dropped after compensation');
  });

  void test('given the sub-process is interrupted before it completes, then what completed inside is not remembered', () => {
    const run = new Scenario(model).start({ id: '1' }).complete('bookHotel');
    assert.equal(run.state.compensation?.subscriptions.length, 1);
    run.send({ type: 'cancel' });
    assert.equal(run.state.compensation, undefined);
  });
});

void describe('compensation event sub-process (compensation-event-sub-process.bpmn)', async () => {
  const model = await loadModel('compensation-event-sub-process.bpmn');

  void test('given a completed sub-process with a compensation event sub-process, when compensation is thrown, then the event sub-process runs and its throw compensates the inner activities', () => {
    const run = new Scenario(model).start().complete('bookHotel').complete('bookFlight').complete('review');
    assert.deepEqual(run.openWaits(), ['logUndo'], 'the event sub-process is the handler of booking');
    run.complete('logUndo');
    assert.deepEqual(run.openWaits(), ['cancelFlight']);
    run.complete('cancelFlight').complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undoAll'), [
      'onUndo',
      'undoStart',
      'logUndo',
      'undoInner',
      'cancelFlight',
      'cancelHotel',
      'undoEnd',
      'end',
    ]);
  });

  void test('given a running sub-process, then its compensation event sub-process waits for nothing', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['bookHotel']);
  });
});

void describe('compensation of multi-instance activities (compensation-multi-instance.bpmn)', async () => {
  const model = await loadModel('compensation-multi-instance.bpmn');

  const completeRoom = (run: Scenario, room: string, variables: Record<string, boolean> = {}) => {
    const wait = run.waitsAt('bookRoom').find((w) => w.kind === 'externalTask' && w.variables.room === room);
    assert.ok(wait !== undefined, `no open booking of room ${room}`);
    return run.send({ type: 'complete', waitId: wait.waitId, variables });
  };
  const cancelledRoom = (run: Scenario) => {
    const wait = run.wait('cancelRoom');
    assert.ok(wait.kind === 'externalTask');
    run.complete('cancelRoom');
    return wait.variables.room;
  };

  void test('given three instances completed b, c, a, when compensation is thrown, then each is compensated with its own room, in reverse order', () => {
    const run = new Scenario(model).start({ rooms: ['a', 'b', 'c'] });
    for (const room of ['b', 'c', 'a']) completeRoom(run, room);
    run.complete('review');
    assert.deepEqual([cancelledRoom(run), cancelledRoom(run), cancelledRoom(run)], ['a', 'c', 'b']);
    assert.equal(run.state.status, 'completed');
  });

  void test('given the completion condition ended the loop early, then only the completed instances are compensated', () => {
    const run = new Scenario(model).start({ rooms: ['a', 'b', 'c'] });
    completeRoom(run, 'b');
    completeRoom(run, 'a', { stop: true });
    run.complete('review');
    assert.deepEqual([cancelledRoom(run), cancelledRoom(run)], ['a', 'b']);
    assert.equal(run.state.status, 'completed');
  });
});

void describe('compensation thrown from an error event sub-process (compensation-error-event-sub-process.bpmn)', async () => {
  const model = await loadModel('compensation-error-event-sub-process.bpmn');

  void test('given the hotel was booked, when payment fails into the event sub-process, then its throw compensates the process scope', () => {
    const run = new Scenario(model).start().complete('bookHotel');
    run.send({ type: 'bpmnError', waitId: run.wait('chargeCard').waitId, errorCode: 'PAYMENT_FAILED' });
    assert.deepEqual(run.openWaits(), ['cancelHotel'], 'an event sub-process does not consume compensation');
    run.complete('cancelHotel');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undo'), ['cancelHotel', 'failedEnd']);
  });
});

void describe('compensation of a multi-instance sub-process (compensation-multi-instance-sub-process.bpmn)', async () => {
  const model = await loadModel('compensation-multi-instance-sub-process.bpmn');

  void test('given every leg was booked in turn, when compensation is thrown, then the inner booking of each instance is undone with its own leg, last first', () => {
    const run = new Scenario(model).start({ legs: ['out', 'back'] });
    run.complete('bookLeg').complete('bookLeg').complete('review');
    const undone: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const wait = run.wait('unbookLeg');
      assert.ok(wait.kind === 'externalTask');
      undone.push(wait.variables.leg);
      run.complete('unbookLeg');
    }
    assert.deepEqual(undone, ['back', 'out']);
    assert.equal(run.state.status, 'completed');
  });
});

void describe('an activity completed more than once (compensation-loop.bpmn)', async () => {
  const model = await loadModel('compensation-loop.bpmn');

  void test('given book completed twice in a loop, when compensation is thrown, then its handler runs once per completion', () => {
    const run = new Scenario(model).start();
    run.complete('book', { more: true, booking: 1 });
    run.complete('book', { more: false, booking: 2 });
    assert.deepEqual(run.openWaits(), ['unbook']);
    run.complete('unbook').complete('unbook');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(activatedAfter(run, 'undo'), ['unbook', 'unbook']);
  });
});
