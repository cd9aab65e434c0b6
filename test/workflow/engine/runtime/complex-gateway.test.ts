import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, permutations, Scenario } from './helpers.js';

void describe('complex gateway join: two of three, then a reset (complex-gateway.bpmn)', async () => {
  const model = await loadModel('complex-gateway.bpmn');

  void test('one arrival does not satisfy activationCount >= 2: the join waits', () => {
    const run = new Scenario(model).start();
    run.complete('a');
    assert.deepEqual(run.openWaits(), ['b', 'c']);
    assert.deepEqual(run.historyOf('gatewayArrived'), ['join']);
  });

  for (const order of permutations(['a', 'b', 'c'])) {
    void test(`in the order ${order.join(', ')}: the second arrival fires the join, the third resets it`, () => {
      const run = new Scenario(model).start();
      const [first, second, third] = order as [string, string, string];
      run.complete(first).complete(second);
      assert.deepEqual(run.openWaits(), [third, 'after'].sort());
      const fired = run
        .history()
        .find((entry) => entry.kind === 'elementActivated' && entry.elementId === 'join');
      assert.equal(fired?.data.activationCount, 2);
      assert.ok(!run.historyOf('flowTaken').includes('toLate'), 'waitingForStart is true when it fires');
      run.complete(third);
      // The reset consumes the late token; only the flow whose condition holds at reset gets one.
      assert.deepEqual(run.openWaits(), ['after', 'late']);
      const reset = run
        .history()
        .find((entry) => entry.kind === 'gatewayDecision' && entry.data.reset === true);
      assert.deepEqual(reset?.data.taken, ['toLate']);
      assert.deepEqual(run.state.joins, {});
    });
  }
});

void describe('complex gateway as a discriminator (complex-discriminator.bpmn)', async () => {
  const model = await loadModel('complex-discriminator.bpmn');

  void test('the first arrival passes, later ones of the round are consumed without output', () => {
    const run = new Scenario(model).start({ skip: false });
    run.complete('b');
    assert.deepEqual(run.openWaits(), ['a', 'after', 'c']);
    run.complete('a');
    run.complete('c');
    assert.deepEqual(run.openWaits(), ['after']);
    assert.deepEqual(run.tokens(), ['after']);
    assert.deepEqual(run.state.joins, {});
  });

  void test('a token consumed by the reset ends there: the last one completes the instance', () => {
    const run = new Scenario(model).start({ skip: false });
    run.complete('b').complete('after').complete('a');
    assert.equal(run.state.status, 'running');
    run.complete('c');
    assert.equal(run.state.status, 'completed');
    const reset = run
      .history()
      .find((entry) => entry.kind === 'gatewayDecision' && entry.data.reset === true);
    assert.deepEqual(reset?.data, { reset: true, taken: [] });
  });

  void test('the gateway resets when no other token can reach it', () => {
    const run = new Scenario(model).start({ skip: true });
    run.complete('a');
    run.complete('c');
    // c left by its conditional flow to an end: only b's token can still arrive.
    assert.ok(run.state.joins[`${run.state.rootScopeId}/join`]?.resetPending !== undefined);
    run.complete('b');
    assert.deepEqual(run.state.joins, {});
    run.complete('after');
    assert.equal(run.state.status, 'completed');
  });

  void test('a reset with nothing left to arrive clears the gateway at once', () => {
    const run = new Scenario(model).start({ skip: true });
    run.complete('c');
    run.complete('a');
    run.complete('b');
    assert.deepEqual(run.state.joins, {});
    assert.deepEqual(run.openWaits(), ['after']);
  });
});

void describe('complex gateway split (complex-split.bpmn)', async () => {
  const model = await loadModel('complex-split.bpmn');

  void test('every flow whose condition is true is taken', () => {
    const run = new Scenario(model).start({ x: 3 });
    assert.deepEqual(run.openWaits(), ['a', 'b']);
    const decision = run.history().find((entry) => entry.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toA', 'toB'] });
  });

  void test('the default flow is taken when no condition is true', () => {
    const run = new Scenario(model).start({ x: 0 });
    assert.deepEqual(run.openWaits(), ['d']);
  });
});
