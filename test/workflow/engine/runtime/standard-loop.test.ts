import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('standard loops on tasks (standard-loop.bpmn)', async () => {
  const model = await loadModel('standard-loop.bpmn');

  const iterations = (run: Scenario, elementId: string) =>
    run
      .history()
      .filter((entry) => entry.kind === 'elementCompleted' && entry.elementId === elementId)
      .map((entry) => entry.data.loopCounter ?? 'body');

  void test('a loop tested after runs while its condition holds, each iteration in the history', () => {
    const run = new Scenario(model).start({ n: 0, limit: 0, more: false });
    assert.equal(run.variables().n, 3);
    assert.deepEqual(iterations(run, 'count'), [0, 1, 2, 'body']);
    const body = run
      .history()
      .find((entry) => entry.kind === 'elementActivated' && entry.elementId === 'count');
    assert.deepEqual(body?.data, { standardLoop: 'body' });
  });

  void test('a loop tested after runs once even when its condition is false at the start', () => {
    const run = new Scenario(model).start({ n: 10, limit: 0, more: false });
    assert.equal(run.variables().n, 11);
    assert.deepEqual(iterations(run, 'count'), [0, 'body']);
  });

  void test('a loop tested before does not run when its condition is false at the start', () => {
    const run = new Scenario(model).start({ n: 10, limit: 0, more: false });
    assert.deepEqual(iterations(run, 'check'), ['body']);
    assert.equal(run.variables().checked, undefined);
    assert.deepEqual(run.openWaits(), ['work']);
  });

  void test('a loop tested before sees loopCounter, the iterations done so far', () => {
    const run = new Scenario(model).start({ n: 10, limit: 2, more: false });
    assert.deepEqual(iterations(run, 'check'), [0, 1, 'body']);
    // Each iteration's script sees its own index as loopCounter.
    assert.equal(run.variables().checked, 1);
  });

  void test('a user task loops while the condition holds, each iteration a new task', () => {
    const run = new Scenario(model).start({ n: 10, limit: 0, more: true });
    const first = run.wait('work').waitId;
    run.complete('work');
    const second = run.wait('work').waitId;
    assert.notEqual(first, second);
    run.complete('work', { more: false });
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(iterations(run, 'work'), [0, 1, 'body']);
  });

  void test('loopMaximum stops the loop even while the condition holds', () => {
    const run = new Scenario(model).start({ n: 10, limit: 0, more: true });
    run.complete('work').complete('work').complete('work');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(iterations(run, 'work'), [0, 1, 2, 'body']);
  });

  void test('a loop condition that is not a boolean is an incident; a retry checks again', () => {
    const run = new Scenario(model).start({ n: 10, limit: 0, more: 'yes' });
    run.complete('work');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'expression');
    assert.match(incident?.message ?? '', /loop condition of 'work'/);
    run.send({ type: 'setVariables', variables: { more: false } });
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.state.status, 'completed');
  });
});

void describe('a standard loop on a sub-process (standard-loop-sub.bpmn)', async () => {
  const model = await loadModel('standard-loop-sub.bpmn');

  void test('the sub-process runs again while its condition holds; its boundary timer spans the loop', () => {
    const run = new Scenario(model).start({ m: 0 });
    const timer = run.wait('timeout').waitId;
    run.complete('approve');
    assert.deepEqual(run.openWaits(), ['approve', 'timeout']);
    assert.equal(run.wait('timeout').waitId, timer);
    run.complete('approve');
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().m, 2);
  });

  void test('an interrupting boundary event ends the whole loop', () => {
    const run = new Scenario(model).start({ m: 0 });
    run.complete('approve');
    run.complete('timeout');
    assert.equal(run.state.status, 'completed');
    assert.ok(run.historyOf('elementCompleted').includes('timedOut'));
    assert.deepEqual(run.openWaits(), []);
  });
});

void describe('a standard loop without a wait state or an end (standard-loop-endless.bpmn)', async () => {
  const model = await loadModel('standard-loop-endless.bpmn');

  void test('it stops at the step limit with an incident instead of running forever', () => {
    const run = new Scenario(model, 50).start();
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'stepLimit');
    assert.equal(incident?.elementId, 'spin');
  });
});
