import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HistoryEntry } from '../../../../src/workflow/engine/runtime/index.js';
import { startInstance } from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, Scenario, testContext } from './helpers.js';

const thrown = (run: Scenario): HistoryEntry['data'][] =>
  run
    .history()
    .filter((entry) => entry.kind === 'escalationThrown')
    .map((entry) => entry.data);

void describe('escalation caught by boundary events of a sub-process (escalation-boundary.bpmn)', async () => {
  const model = await loadModel('escalation-boundary.bpmn');

  void test('a non-interrupting boundary event catches it: the sub-process and the thrower go on', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'late' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'late', caught: true, caughtBy: 'onLate' }]);
    assert.deepEqual(run.openWaits(), ['afterThrow', 'innerWork', 'lateTask']);
    assert.equal(run.historyOf('elementTerminated').length, 0);
    run.complete('innerWork').complete('afterThrow');
    assert.deepEqual(run.openWaits(), ['after', 'lateTask'], 'the sub-process completed normally');
    run.complete('lateTask').complete('after');
    assert.equal(run.state.status, 'completed');
  });

  void test('an interrupting boundary event with the exact code catches it and ends the sub-process', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'stop' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'stop', caught: true, caughtBy: 'onStop' }]);
    assert.deepEqual(run.openWaits(), ['stopTask'], 'the exact code wins over the catch-all onAny');
    assert.ok(run.historyOf('elementTerminated').includes('innerWork'));
    assert.ok(run.historyOf('elementTerminated').includes('stage'));
    assert.equal(run.historyOf('elementCompleted').includes('stage'), false);
    run.complete('stopTask');
    assert.equal(run.state.status, 'completed');
  });

  void test('a boundary event without a code catches a code nothing else names', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'other' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'other', caught: true, caughtBy: 'onAny' }]);
    assert.deepEqual(run.openWaits(), ['anyTask']);
  });
});

void describe('escalation caught by event sub-processes (escalation-event-sub-process.bpmn)', async () => {
  const model = await loadModel('escalation-event-sub-process.bpmn');

  void test('a non-interrupting escalation event sub-process runs beside the scope, once', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'late' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'late', caught: true, caughtBy: 'lateStart' }]);
    assert.deepEqual(run.openWaits(), ['afterThrow', 'innerWork', 'lateTask']);
    run.complete('innerWork').complete('afterThrow');
    assert.deepEqual(run.openWaits(), ['lateTask'], 'the sub-process waits for its event sub-process');
    run.complete('lateTask');
    assert.deepEqual(run.openWaits(), ['after']);
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'onLate').length, 1);
  });

  void test('an interrupting escalation event sub-process ends the rest of its scope', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'stop' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'stop', caught: true, caughtBy: 'stopStart' }]);
    assert.deepEqual(run.openWaits(), ['stopTask']);
    assert.ok(run.historyOf('elementTerminated').includes('innerWork'));
    run.complete('stopTask');
    assert.deepEqual(run.openWaits(), ['after'], 'the sub-process completes after its event sub-process');
  });

  void test('a code the sub-process does not catch goes on to the catch-all of the process', () => {
    const run = new Scenario(model).start().complete('decide', { code: 'other' });
    assert.deepEqual(thrown(run), [{ escalationCode: 'other', caught: true, caughtBy: 'anyStart' }]);
    assert.deepEqual(run.openWaits(), ['anyTask']);
    assert.ok(run.historyOf('elementTerminated').includes('stage'));
    run.complete('anyTask');
    assert.equal(run.state.status, 'completed');
  });
});

void describe('uncaught escalation (escalation-uncaught.bpmn)', async () => {
  const model = await loadModel('escalation-uncaught.bpmn');

  void test('an escalation nothing catches is recorded and the instance goes on to complete', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(thrown(run), [{ escalationCode: 'late', caught: false, caughtBy: null }]);
    assert.deepEqual(run.openWaits(), ['work']);
    assert.equal(run.state.status, 'running');
    run.complete('work');
    assert.deepEqual(thrown(run)[1], { escalationCode: 'stop', caught: false, caughtBy: null });
    assert.equal(run.state.status, 'completed', 'an escalation end event ends like a none end event');
    assert.equal(run.incidents().length, 0);
    assert.equal(run.effectsOf('escalationPropagated').length, 0);
  });

  void test('in a called instance it goes to the caller and the instance goes on', () => {
    const result = startInstance(model, { variables: {}, calledByParent: true }, testContext());
    assert.ok(result.ok);
    const propagated = result.effects.filter((effect) => effect.type === 'escalationPropagated');
    assert.deepEqual(propagated, [{ type: 'escalationPropagated', escalationCode: 'late' }]);
    const entry = result.effects.find((e) => e.type === 'history' && e.entry.kind === 'escalationThrown');
    assert.ok(entry?.type === 'history');
    assert.equal(entry.entry.data.propagatedToCaller, true);
    assert.equal(result.state.status, 'running');
    assert.ok(Object.values(result.state.waits).some((wait) => wait.elementId === 'work'));
  });
});

void describe('escalation in a multi-instance sub-process (escalation-multi-instance.bpmn)', async () => {
  const model = await loadModel('escalation-multi-instance.bpmn');

  void test("each instance's escalation reaches the body's non-interrupting boundary event", () => {
    const run = new Scenario(model).start();
    assert.equal(thrown(run).length, 3);
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'onLate').length, 3);
    assert.equal(run.historyOf('elementCompleted').filter((id) => id === 'noted').length, 3);
    assert.deepEqual(run.openWaits(), ['item', 'item', 'item']);
    for (const wait of run.waitsAt('item')) run.send({ type: 'complete', waitId: wait.waitId });
    assert.deepEqual(run.openWaits(), ['after']);
  });

  void test("an interrupting catch ends the whole body, every instance's work too", () => {
    const run = new Scenario(model).start();
    const [first] = run.waitsAt('item');
    assert.ok(first !== undefined);
    run.send({ type: 'complete', waitId: first.waitId, variables: { code: 'stop' } });
    assert.deepEqual(thrown(run).at(-1), { escalationCode: 'stop', caught: true, caughtBy: 'onStop' });
    assert.deepEqual(run.openWaits(), ['stopTask']);
    assert.equal(run.historyOf('elementTerminated').filter((id) => id === 'item').length, 2);
  });
});

void describe('escalation with cancel and terminate (escalation-terminate.bpmn)', async () => {
  const model = await loadModel('escalation-terminate.bpmn');

  void test('a terminate end event also ends the event sub-process an escalation started', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['gate', 'lateTask', 'work']);
    run.complete('gate');
    assert.equal(run.state.status, 'terminated');
    assert.deepEqual(run.openWaits(), []);
    assert.ok(run.historyOf('elementTerminated').includes('lateTask'));
  });

  void test('cancelling the instance ends the event sub-process an escalation started', () => {
    const run = new Scenario(model).start().send({ type: 'cancel' });
    assert.equal(run.state.status, 'cancelled');
    assert.deepEqual(run.openWaits(), []);
    assert.ok(run.historyOf('elementTerminated').includes('onLate'));
  });
});

void describe('escalation thrown at a call activity by its child (escalation-caller.bpmn)', async () => {
  const model = await loadModel('escalation-caller.bpmn');
  const escalate = (run: Scenario, escalationCode: string) =>
    run.send({ type: 'escalation', waitId: run.wait('call').waitId, escalationCode });

  void test("the call activity's non-interrupting boundary event catches it; the call goes on waiting", () => {
    const run = escalate(new Scenario(model).start(), 'late');
    assert.deepEqual(thrown(run), [{ escalationCode: 'late', caught: true, caughtBy: 'onLate' }]);
    assert.deepEqual(run.openWaits(), ['call', 'lateTask', 'side']);
  });

  void test('a code the call activity does not catch goes out to the process catch-all, ending the call', () => {
    const run = escalate(new Scenario(model).start(), 'other');
    assert.deepEqual(thrown(run), [{ escalationCode: 'other', caught: true, caughtBy: 'anyStart' }]);
    assert.deepEqual(run.openWaits(), ['anyTask']);
    const closed = run.effectsOf('waitClosed').find((effect) => effect.kind === 'callActivity');
    assert.equal(closed?.reason, 'interrupted', 'the driver cancels the child');
  });

  void test('an escalation event for a wait that is not a call activity is refused', () => {
    const run = new Scenario(model).start();
    const result = run.try({ type: 'escalation', waitId: run.wait('side').waitId, escalationCode: 'late' });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'notApplicable');
  });
});
