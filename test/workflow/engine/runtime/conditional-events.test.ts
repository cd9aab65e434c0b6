import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

const set = (run: Scenario, variables: Record<string, unknown>) =>
  run.send({ type: 'setVariables', variables: variables as never });

void describe('intermediate conditional catch (conditional-catch.bpmn)', async () => {
  const model = await loadModel('conditional-catch.bpmn');

  void test('a condition already true when the event is entered passes at once', () => {
    const run = new Scenario(model).start({ ready: true });
    assert.deepEqual(run.openWaits(), ['after']);
    assert.deepEqual(run.historyOf('elementCompleted').slice(0, 2), ['start', 'gate']);
  });

  void test('a false condition waits, with no row for the driver, until a variable change makes it true', () => {
    const run = new Scenario(model).start({ ready: false });
    const wait = run.wait('gate');
    assert.equal(wait.kind, 'conditional');
    set(run, { other: 1 });
    assert.deepEqual(run.openWaits(), ['gate']);
    set(run, { ready: true });
    assert.deepEqual(run.openWaits(), ['after']);
  });

  void test('cancelling the instance closes the conditional wait, and later changes are refused', () => {
    const run = new Scenario(model).start({});
    const waitId = run.wait('gate').waitId;
    run.send({ type: 'cancel' });
    const closed = run.effectsOf('waitClosed').find((effect) => effect.waitId === waitId);
    assert.equal(closed?.reason, 'cancelled');
    assert.equal(run.state.status, 'cancelled');
    const refused = run.try({ type: 'setVariables', variables: { ready: true } });
    assert.ok(!refused.ok && refused.error.code === 'instanceEnded');
  });
});

void describe('conditional boundary events (conditional-boundary.bpmn)', async () => {
  const model = await loadModel('conditional-boundary.bpmn');

  void test('an interrupting boundary true on entry interrupts its activity at once', () => {
    const run = new Scenario(model).start({ status: 'changed' });
    assert.deepEqual(run.openWaits(), ['redo', 'work']);
    assert.ok(run.historyOf('elementTerminated').includes('review'));
  });

  void test('an external task completing in a parallel branch fires the interrupting boundary', () => {
    const run = new Scenario(model).start({ status: 'new' });
    assert.deepEqual(run.openWaits(), ['broken', 'changed', 'counted', 'note', 'review', 'work']);
    run.complete('work', { status: 'changed' });
    assert.deepEqual(run.openWaits(), ['redo']);
    assert.ok(run.historyOf('elementTerminated').includes('review'));
  });

  void test('a non-interrupting boundary with a variableName fires on each change of that variable only', () => {
    const run = new Scenario(model).start({ priority: 1 });
    set(run, { priority: 7 });
    assert.equal(run.waitsAt('notify').length, 1);
    assert.equal(run.waitsAt('review').length, 1);
    // Another variable does not evaluate it, though the condition still holds.
    set(run, { unrelated: true });
    assert.equal(run.waitsAt('notify').length, 1);
    // Camunda 7 fires a non-interrupting event on every matching change while the condition holds.
    set(run, { priority: 9 });
    assert.equal(run.waitsAt('notify').length, 2);
    set(run, { priority: 2 });
    assert.equal(run.waitsAt('notify').length, 2);
  });

  void test('variableEvents="create" fires when the variable is created, not when it is updated', () => {
    const run = new Scenario(model).start({});
    set(run, { count: 1 });
    assert.equal(run.waitsAt('tally').length, 1);
    set(run, { count: 2 });
    assert.equal(run.waitsAt('tally').length, 1);
  });

  void test('a condition that does not give a boolean is an incident on the event, retried after a fix', () => {
    const run = new Scenario(model).start({});
    set(run, { flag: 'maybe' });
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'broken');
    assert.equal(incident?.kind, 'expression');
    assert.equal(run.state.status, 'incident');
    assert.equal(run.waitsAt('review').length, 1, 'the activity still waits');
    // While the incident is open the condition is not evaluated again.
    set(run, { flag: true });
    assert.equal(run.waitsAt('flagged').length, 0);
    assert.equal(run.incidents().length, 1);
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.incidents().length, 0);
    assert.equal(run.waitsAt('flagged').length, 1);
    assert.equal(run.state.status, 'running');
  });

  void test('a task completed with variables meeting its interrupting condition is interrupted instead (Camunda 7)', () => {
    const run = new Scenario(model).start({});
    run.complete('review', { status: 'changed' });
    assert.deepEqual(run.openWaits(), ['redo', 'work']);
    assert.ok(run.historyOf('elementTerminated').includes('review'));
    assert.ok(!run.historyOf('elementCompleted').includes('review'));
  });

  void test('a task completed with variables meeting a non-interrupting condition fires it and completes', () => {
    const run = new Scenario(model).start({});
    run.complete('review', { priority: 9 });
    assert.deepEqual(run.openWaits(), ['notify', 'work']);
    assert.ok(run.historyOf('elementCompleted').includes('review'));
  });

  void test('completing the activity withdraws its conditional boundaries and their incidents', () => {
    const run = new Scenario(model).start({});
    set(run, { flag: 'maybe' });
    run.complete('review');
    assert.equal(run.incidents().length, 0);
    assert.deepEqual(run.openWaits(), ['work']);
    run.complete('work', { status: 'changed', priority: 10 });
    assert.equal(run.state.status, 'completed');
  });
});

void describe('conditional event sub-processes (conditional-event-sub-process.bpmn)', async () => {
  const model = await loadModel('conditional-event-sub-process.bpmn');

  void test('an interrupting one true when the process starts runs instead of the none start', () => {
    const run = new Scenario(model).start({ cancel: true });
    assert.deepEqual(run.openWaits(), ['cleanup']);
    assert.ok(!run.historyOf('elementActivated').includes('task'));
  });

  void test("an interrupting one fired by a variable change ends the scope's work", () => {
    const run = new Scenario(model).start({});
    assert.deepEqual(run.openWaits(), ['onAlert', 'onCancel', 'task']);
    set(run, { cancel: true });
    assert.deepEqual(run.openWaits(), ['cleanup']);
    run.complete('cleanup');
    assert.equal(run.state.status, 'completed');
  });

  void test('a non-interrupting one runs beside the scope, once per matching change', () => {
    const run = new Scenario(model).start({});
    set(run, { alert: true });
    assert.deepEqual(run.openWaits(), ['log', 'onAlert', 'onCancel', 'task']);
    set(run, { other: 1, more: 2 });
    assert.equal(run.waitsAt('log').length, 3, 'one firing per variable written while alert holds');
    set(run, { alert: false });
    assert.equal(run.waitsAt('log').length, 3);
  });
});

void describe('nested conditional events (conditional-nested.bpmn)', async () => {
  const model = await loadModel('conditional-nested.bpmn');

  void test('a change seen by a boundary inside a sub-process fires it', () => {
    const run = new Scenario(model).start({});
    set(run, { level: 5 });
    assert.deepEqual(run.openWaits(), ['fixed', 'onNote', 'subCond']);
  });

  void test('an event sub-process inside a sub-process fires on a root change and ends with it', () => {
    const run = new Scenario(model).start({});
    set(run, { note: 'look' });
    assert.deepEqual(run.openWaits(), ['inner', 'innerCond', 'noted', 'onNote', 'subCond']);
    set(run, { abort: true });
    assert.deepEqual(run.openWaits(), ['aborted']);
    assert.ok(run.historyOf('elementTerminated').includes('noted'));
  });

  void test('evaluation is top-down: the sub-process boundary interrupts before the inner one is looked at', () => {
    const run = new Scenario(model).start({});
    set(run, { level: 5, abort: true });
    assert.deepEqual(run.openWaits(), ['aborted']);
    assert.ok(!run.historyOf('elementActivated').includes('fixed'));
  });

  void test('catches in the instances of a multi-instance body and its boundary see root changes', () => {
    const run = new Scenario(model).start({ items: [1, 0] }).complete('inner');
    assert.deepEqual(run.openWaits(), ['ready', 'ready', 'warn']);
    set(run, { warn: true });
    assert.deepEqual(run.openWaits(), ['ready', 'ready', 'warn', 'warned']);
    set(run, { go: true });
    // The instance whose item is 0 still waits: its condition sees its own item. The body's
    // non-interrupting boundary fires again, since warn still holds on this change.
    assert.deepEqual(run.openWaits(), ['ready', 'warn', 'warned', 'warned']);
  });
});

void describe('a conditional branch of an event-based gateway (conditional-event-gateway.bpmn)', async () => {
  const model = await loadModel('conditional-event-gateway.bpmn');

  void test('a condition true when the gateway is reached takes its branch at once', () => {
    const run = new Scenario(model).start({ approved: true });
    assert.deepEqual(run.openWaits(), ['approved']);
  });

  void test('a later variable change takes the conditional branch and withdraws the timer', () => {
    const run = new Scenario(model).start({});
    assert.deepEqual(run.openWaits(), ['approvedWhen', 'tooLate']);
    set(run, { approved: true });
    assert.deepEqual(run.openWaits(), ['approved']);
  });

  void test('the timer firing first withdraws the conditional branch', () => {
    const run = new Scenario(model).start({});
    run.complete('tooLate');
    set(run, { approved: true });
    assert.deepEqual(run.openWaits(), ['late']);
  });
});

void describe('a non-interrupting condition its own path keeps true (conditional-loop.bpmn)', async () => {
  const model = await loadModel('conditional-loop.bpmn');

  void test('stops with a step-limit incident on the event after maxStepsPerCall firings; retry goes on', () => {
    const run = new Scenario(model, 20).start({ x: 0 });
    set(run, { x: 1 });
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'stepLimit');
    assert.equal(incident?.elementId, 'bump');
    assert.equal(run.variables().x, 21);
    assert.deepEqual(run.tokens(), ['u'], 'the activity still waits');
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.variables().x, 41);
    assert.equal(run.incidents().length, 1);
  });
});

void describe('conditional boundaries of activities done at once (conditional-immediate.bpmn)', async () => {
  const model = await loadModel('conditional-immediate.bpmn');
  const completed = (run: Scenario, id: string) => run.historyOf('elementCompleted').includes(id);
  const terminated = (run: Scenario, id: string) => run.historyOf('elementTerminated').includes(id);

  void test('a FEEL script whose result meets its interrupting condition takes the boundary path only', () => {
    const run = new Scenario(model).start({ path: 'compute', amount: 60 });
    assert.deepEqual(run.openWaits(), ['escalate']);
    assert.ok(terminated(run, 'compute'));
    assert.ok(!completed(run, 'compute'));
    assert.ok(!run.historyOf('elementActivated').includes('computed'));
    assert.equal(run.variables().total, 120, 'the result was stored before the condition saw it');
  });

  void test('a FEEL script whose result does not meet it completes and withdraws the boundary wait', () => {
    const run = new Scenario(model).start({ path: 'compute', amount: 10 });
    assert.deepEqual(run.openWaits(), ['computed']);
    assert.ok(completed(run, 'compute'));
    const boundary = run.effectsOf('waitOpened').find((effect) => effect.wait.elementId === 'tooMuch');
    const closed = run.effectsOf('waitClosed').find((effect) => effect.waitId === boundary?.wait.waitId);
    assert.equal(closed?.reason, 'cancelled');
  });

  void test('a FEEL script whose result meets its non-interrupting condition takes both paths', () => {
    const run = new Scenario(model).start({ path: 'measure', amount: 60 });
    assert.deepEqual(run.openWaits(), ['measured', 'notify']);
    assert.ok(completed(run, 'measure'));
    assert.equal(run.historyOf('elementCompleted').filter((id) => id === 'large').length, 1);
  });

  void test('a plain task whose interrupting condition holds on entry is interrupted and never completes', () => {
    const run = new Scenario(model).start({ path: 'check', amount: 10, blocked: true });
    assert.deepEqual(run.openWaits(), ['unblock']);
    assert.ok(run.historyOf('elementActivated').includes('check'));
    assert.ok(terminated(run, 'check'));
    assert.ok(!completed(run, 'check'));
    assert.equal(run.variables().verdict, undefined, 'its output mapping never ran');
  });

  void test("a plain task's output mapping that meets its interrupting condition interrupts it", () => {
    const run = new Scenario(model).start({ path: 'check', amount: 500 });
    assert.deepEqual(run.openWaits(), ['handleReject']);
    assert.ok(terminated(run, 'check'));
    assert.ok(!run.historyOf('elementActivated').includes('log'));
  });

  void test('a plain task without boundary events opens no wait', () => {
    const run = new Scenario(model).start({ path: 'check', amount: 10 });
    assert.deepEqual(run.openWaits(), ['checked']);
    assert.ok(completed(run, 'check') && completed(run, 'log'));
    const opened = run.effectsOf('waitOpened').map((effect) => effect.wait.elementId);
    assert.deepEqual(opened.sort(), ['blocked', 'checked', 'rejected']);
  });
});
