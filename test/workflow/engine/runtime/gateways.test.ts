import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InstanceState } from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, permutations, Scenario } from './helpers.js';

void describe('scripts and an exclusive gateway with a default (scripts-only.bpmn)', async () => {
  const model = await loadModel('scripts-only.bpmn');

  void test('a process of scripts and gateways completes within the start call', () => {
    const run = new Scenario(model).start({ amount: 80 });
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(run.variables(), { amount: 80, doubled: 160, label: 'big' });
    assert.deepEqual(run.historyOf('elementCompleted'), ['start', 'double', 'size', 'big', 'bigEnd']);
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toBig'] });
  });

  void test('with no true condition the default flow is taken', () => {
    const run = new Scenario(model).start({ amount: 10 });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().label, 'small');
    assert.deepEqual(run.historyOf('flowTaken'), ['f1', 'f2', 'toSmall', 'f4']);
  });

  void test('a FEEL error in a script is an incident, and retrying after a fix goes on', () => {
    const run = new Scenario(model).start({ amount: 'ten' });
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'double');
    assert.equal(incident?.kind, 'expression');
    assert.deepEqual(run.tokens(), ['double']);
    run.send({ type: 'setVariables', variables: { amount: 60 } });
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().label, 'big');
  });
});

void describe('exclusive gateway without a default (exclusive.bpmn)', async () => {
  const model = await loadModel('exclusive.bpmn');

  void test('the first true condition in document order wins', () => {
    const run = new Scenario(model).start({ score: 90 });
    assert.deepEqual(run.openWaits(), ['after']);
    assert.ok(run.historyOf('flowTaken').includes('toA'));
    assert.ok(!run.historyOf('flowTaken').includes('toB'));
  });

  void test('no true condition and no default raises an incident at the gateway', () => {
    const run = new Scenario(model).start({ score: 10 });
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'noPath');
    assert.equal(incident?.elementId, 'route');
    assert.deepEqual(run.tokens(), ['route']);
    assert.deepEqual(run.effectsOf('incidentRaised').length, 1);
  });

  void test('retrying a gateway incident decides again with the current variables', () => {
    const run = new Scenario(model).start({ score: 10 });
    const incidentId = run.incidents()[0]?.incidentId ?? '';
    run.send({ type: 'setVariables', variables: { score: 55 } });
    run.send({ type: 'retryIncident', incidentId });
    assert.equal(run.state.status, 'running');
    assert.deepEqual(run.openWaits(), ['after']);
    assert.ok(run.historyOf('flowTaken').includes('toB'));
  });

  void test('a missing variable is null in FEEL, so its comparison is not true', () => {
    const run = new Scenario(model).start({});
    assert.equal(run.incidents()[0]?.kind, 'noPath');
  });
});

/** The state of an instance without its ids, to compare runs that took different orders. */
function shape(state: InstanceState): unknown {
  return {
    status: state.status,
    variables: state.scopes[state.rootScopeId]?.variables,
    tokens: Object.values(state.tokens)
      .map((t) => `${t.elementId}:${t.phase}`)
      .sort(),
    waits: Object.values(state.waits)
      .map((w) => `${w.elementId}:${w.kind}`)
      .sort(),
    joins: Object.keys(state.joins).length,
    scopes: Object.keys(state.scopes).length,
  };
}

void describe('parallel split and join (parallel.bpmn)', async () => {
  const model = await loadModel('parallel.bpmn');

  void test('the split opens one wait per branch', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['a', 'b', 'c']);
    assert.deepEqual(run.tokens(), ['a', 'b', 'c']);
  });

  void test('the join waits for every branch, then fires once', () => {
    const run = new Scenario(model).start();
    run.complete('a', { a: 1 });
    assert.deepEqual(run.tokens(), ['b', 'c', 'join']);
    run.complete('b', { b: 2 });
    assert.deepEqual(run.tokens(), ['c', 'join', 'join']);
    assert.deepEqual(run.openWaits(), ['c']);
    run.complete('c', { c: 3 });
    assert.deepEqual(run.tokens(), ['approve']);
    assert.deepEqual(run.openWaits(), ['approve']);
    assert.deepEqual(run.state.joins, {});
  });

  for (const order of permutations(['a', 'b', 'c'])) {
    void test(`completing the branches in the order ${order.join(', ')} fires the join exactly once`, () => {
      const run = new Scenario(model).start();
      for (const id of order) run.complete(id, { [id]: id.toUpperCase() });
      assert.deepEqual(run.waitsAt('approve').length, 1);
      assert.equal(run.historyOf('elementActivated').filter((id) => id === 'approve').length, 1);
      assert.deepEqual(shape(run.state), {
        status: 'running',
        variables: { a: 'A', b: 'B', c: 'C' },
        tokens: ['approve:waiting'],
        waits: ['approve:userTask'],
        joins: 0,
        scopes: 1,
      });
      run.complete('approve');
      assert.equal(run.state.status, 'completed');
    });
  }

  void test('property: any order of completions, with repeats of the same variable, ends in the same state', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let reference: unknown;
    for (let round = 0; round < 30; round++) {
      const order = ['a', 'b', 'c'].sort(() => random() - 0.5);
      const run = new Scenario(model).start({ total: 0 });
      for (const id of order) run.complete(id, { [`${id}Done`]: true });
      run.complete('approve');
      const result = shape(run.state);
      reference ??= result;
      assert.deepEqual(result, reference, `order ${order.join(',')}`);
    }
  });
});

void describe('inclusive split and join (inclusive.bpmn)', async () => {
  const model = await loadModel('inclusive.bpmn');

  void test('the split takes every flow whose condition is true', () => {
    const run = new Scenario(model).start({ wantsA: true, wantsB: true, wantsD: false });
    assert.deepEqual(run.openWaits(), ['a', 'b']);
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toA', 'toB'] });
  });

  void test('a condition that gives a value other than a boolean is an expression incident', () => {
    const run = new Scenario(model).start({ wantsA: 'yes', wantsB: true, wantsD: false });
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'split');
    assert.equal(incident?.kind, 'expression');
    assert.match(incident?.message ?? '', /condition of 'toA': gave "yes", not a boolean/);
    assert.deepEqual(run.openWaits(), [], 'no branch starts before the decision is whole');
  });

  void test('with no true condition the default flow alone is taken', () => {
    const run = new Scenario(model).start({ wantsA: false, wantsB: false, wantsD: false });
    assert.deepEqual(run.openWaits(), ['c']);
    run.complete('c');
    assert.deepEqual(run.openWaits(), ['after'], 'a single arrival fires the join');
  });

  void test('the join waits for a token that can still arrive, through further tasks', () => {
    const run = new Scenario(model).start({ wantsA: true, wantsB: true, wantsD: false });
    run.complete('a');
    assert.deepEqual(run.tokens(), ['b', 'merge']);
    run.complete('b');
    assert.deepEqual(run.tokens(), ['b2', 'merge'], 'b2 can still reach the merge');
    run.complete('b2');
    assert.deepEqual(run.tokens(), ['after']);
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'merge').length, 1);
  });

  void test('the join does not wait for a branch that cannot reach it', () => {
    const run = new Scenario(model).start({ wantsA: true, wantsB: false, wantsD: true });
    assert.deepEqual(run.openWaits(), ['a', 'd']);
    run.complete('a');
    assert.deepEqual(run.tokens(), ['after', 'd'], 'd ends elsewhere, so the merge fires');
    run.complete('d');
    run.complete('after');
    assert.equal(run.state.status, 'completed');
  });

  for (const order of permutations(['a', 'b', 'b2'].slice(0, 2))) {
    void test(`branches completed in the order ${order.join(', ')} merge once`, () => {
      const run = new Scenario(model).start({ wantsA: true, wantsB: true, wantsD: false });
      for (const id of order) run.complete(id);
      run.complete('b2');
      assert.deepEqual(run.tokens(), ['after']);
      assert.equal(run.historyOf('elementActivated').filter((id) => id === 'merge').length, 1);
    });
  }
});

void describe('an inclusive join and a token of a later round (inclusive-join-next-round.bpmn)', async () => {
  const model = await loadModel('inclusive-join-next-round.bpmn');

  void test('given a token that can reach both an empty and a filled incoming flow, the join fires without it', () => {
    const run = new Scenario(model).start({ redo: false });
    assert.deepEqual(
      run.historyOf('elementCompleted').filter((id) => id === 'join' || id === 'end'),
      ['join', 'end'],
    );
    assert.deepEqual(run.tokens(), ['review']);
    run.complete('review');
    assert.equal(run.state.status, 'completed');
    assert.equal(run.historyOf('elementCompleted').filter((id) => id === 'join').length, 2);
  });
});
