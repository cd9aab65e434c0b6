import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('conditional and default flows out of a task (activity-flows.bpmn)', async () => {
  const model = await loadModel('activity-flows.bpmn');

  void test('a task leaves by its one flow whose condition is true', () => {
    const run = new Scenario(model).start({ amount: 50, flagged: false });
    run.complete('check');
    assert.deepEqual(run.openWaits(), ['fast']);
    assert.deepEqual(run.historyOf('flowTaken'), ['f1', 'toFast']);
  });

  void test('every flow whose condition is true is taken, each with its own token', () => {
    const run = new Scenario(model).start({ amount: 50, flagged: true });
    run.complete('check');
    assert.deepEqual(run.openWaits(), ['fast', 'flagged']);
    assert.deepEqual(run.tokens(), ['fast', 'flagged']);
  });

  void test('the default flow is taken when no condition is true', () => {
    const run = new Scenario(model).start({ amount: 500, flagged: false });
    run.complete('check');
    assert.deepEqual(run.openWaits(), ['manual']);
    assert.deepEqual(run.historyOf('flowTaken'), ['f1', 'toManual']);
  });

  void test('conditions see the variables the task completed with', () => {
    const run = new Scenario(model).start({ amount: 500, flagged: false });
    run.complete('check', { flagged: true });
    assert.deepEqual(run.openWaits(), ['flagged']);
  });
});

void describe('unconditional flows, no-path incidents, events and sub-processes (activity-flow-paths.bpmn)', async () => {
  const model = await loadModel('activity-flow-paths.bpmn');

  void test('an unconditional flow is always taken, a false conditional one is not', () => {
    const run = new Scenario(model).start({ decision: 'no' });
    run.complete('work');
    assert.deepEqual(run.openWaits(), ['notify']);
    assert.ok(!run.historyOf('flowTaken').includes('toYes'));
  });

  void test('an unconditional flow and a true conditional flow split the token', () => {
    const run = new Scenario(model).start({ decision: 'yes' });
    run.complete('work');
    assert.deepEqual(run.openWaits(), ['notify', 'yes']);
  });

  void test('with no condition true and no default the token stops with a noPath incident; a retry chooses again', () => {
    const run = new Scenario(model).start({ decision: 'no', done: false });
    run.complete('work');
    run.complete('notify');
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'noPath');
    assert.equal(incident?.elementId, 'notify');
    assert.deepEqual(run.tokens(), ['notify']);
    assert.deepEqual(
      run.historyOf('elementCompleted').filter((id) => id === 'notify'),
      ['notify'],
    );
    run.send({ type: 'setVariables', variables: { done: true } });
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.state.status, 'completed');
    assert.ok(run.historyOf('flowTaken').includes('toFinish'));
  });

  void test('a throw event leaves by its conditional flow only when it is true', () => {
    const run = new Scenario(model).start({ decision: 'yes', go: false });
    run.complete('work');
    run.complete('yes');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'noPath');
    assert.equal(incident?.elementId, 'mark');
  });

  void test('a sub-process leaves by its true conditional flow, else by its default', () => {
    const big = new Scenario(model).start({ decision: 'yes', go: true, size: 5 });
    big.complete('work');
    big.complete('yes');
    assert.ok(big.historyOf('flowTaken').includes('toBig'));
    assert.ok(big.historyOf('elementCompleted').includes('bigEnd'));

    const small = new Scenario(model).start({ decision: 'yes', go: true, size: 0 });
    small.complete('work');
    small.complete('yes');
    assert.ok(small.historyOf('flowTaken').includes('toSmall'));
    assert.ok(!small.historyOf('flowTaken').includes('toBig'));
  });
});
