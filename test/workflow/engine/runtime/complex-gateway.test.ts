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

  for (const order of permutations(['a', 'b', 'c'])) {
    void test(`WCP09, in the order ${order.join(', ')}: the downstream task runs once`, () => {
      const run = new Scenario(model).start({ skip: false });
      for (const id of order) run.complete(id);
      assert.deepEqual(activations(run, 'after'), 1);
      assert.deepEqual(run.openWaits(), ['after']);
      assert.deepEqual(run.state.joins, {});
    });

    void test(`WCP09, in the order ${order.join(', ')} with the downstream task done first: it ran once`, () => {
      const run = new Scenario(model).start({ skip: false });
      const [first, ...rest] = order as [string, ...string[]];
      run.complete(first).complete('after');
      for (const id of rest) run.complete(id);
      assert.equal(activations(run, 'after'), 1);
      assert.equal(run.state.status, 'completed');
    });
  }

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

void describe('complex gateway inside a loop (complex-loop.bpmn)', async () => {
  const model = await loadModel('complex-loop.bpmn');

  void test('run twice, each round fires once and resets once', () => {
    const run = new Scenario(model).start({ skip: false });
    run.complete('a').complete('b').complete('c');
    assert.deepEqual(run.openWaits(), ['after', 'late']);
    run.complete('after', { again: true });
    assert.deepEqual(run.openWaits(), ['a', 'b', 'c', 'late']);
    run.complete('b').complete('c');
    assert.deepEqual(run.openWaits(), ['a', 'after', 'late']);
    run.complete('a');
    assert.deepEqual(run.openWaits(), ['after', 'late', 'late']);
    run.complete('after', { again: false });
    for (const wait of run.waitsAt('late')) run.send({ type: 'complete', waitId: wait.waitId });
    assert.equal(run.state.status, 'completed');
    assert.equal(activations(run, 'after'), 2);
    assert.equal(activations(run, 'late'), 2);
    assert.deepEqual(run.state.joins, {});
  });

  void test('a next-round token on a flow that already delivered waits for the next round', () => {
    const run = new Scenario(model).start({ skip: false });
    run.complete('a').complete('b');
    run.complete('after', { again: true });
    // Round 1's c is still open; round 2 reaches a and b again and both arrive.
    run.complete('a').complete('b');
    assert.equal(activations(run, 'after'), 1, 'the gateway waiting for reset does not fire again');
    const join = run.state.joins[`${run.state.rootScopeId}/join`];
    assert.deepEqual(join?.resetPending, ['fromC']);
    assert.deepEqual(Object.keys(join.arrived).sort(), ['fromA', 'fromB']);
    assert.deepEqual(run.openWaits(), ['c', 'c']);
    // A c arrives: the reset consumes it, then round 2's waiting tokens fire the gateway.
    completeFirst(run, 'c');
    assert.deepEqual(run.openWaits(), ['after', 'c', 'late']);
    assert.equal(activations(run, 'after'), 2);
    const fired = run
      .history()
      .filter((entry) => entry.kind === 'elementActivated' && entry.elementId === 'join')
      .map((entry) =>
        entry.data.reset === true ? 'reset' : `fire ${JSON.stringify(entry.data.activationCount)}`,
      );
    assert.deepEqual(fired, ['fire 2', 'reset', 'fire 2']);
    completeFirst(run, 'c');
    assert.deepEqual(run.openWaits(), ['after', 'late', 'late']);
    assert.deepEqual(run.state.joins, {});
  });

  void test('a next-round token on its way does not delay the reset', () => {
    const run = new Scenario(model).start({ skip: true });
    run.complete('a').complete('b');
    assert.ok(run.state.joins[`${run.state.rootScopeId}/join`]?.resetPending !== undefined);
    // c leaves by its other flow: the token at 'after' could reach c again, but only through the
    // loop, which passes a and b first: it belongs to the next round, so the gateway resets now.
    run.complete('c');
    assert.deepEqual(run.state.joins, {});
    assert.deepEqual(run.openWaits(), ['after']);
    run.complete('after', { again: true, skip: false });
    run.complete('a').complete('b');
    assert.deepEqual(run.openWaits(), ['after', 'c'], 'round 2 fires as a new round');
    run.complete('c');
    assert.deepEqual(run.openWaits(), ['after', 'late']);
    run.complete('after', { again: false }).complete('late');
    assert.equal(run.state.status, 'completed');
  });
});

// How often an element was activated.
function activations(run: Scenario, elementId: string): number {
  return run.history().filter((entry) => entry.kind === 'elementActivated' && entry.elementId === elementId)
    .length;
}

// Completes the first of several open waits at an element.
function completeFirst(run: Scenario, elementId: string): void {
  const [wait] = run.waitsAt(elementId);
  assert.ok(wait !== undefined, `no wait at '${elementId}'`);
  run.send({ type: 'complete', waitId: wait.waitId });
}
