import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

// Camunda 7 runs gateways whose outgoing flows lack a condition without being the default: such a
// flow counts as a true one (docs/workflow/engine.md, "Flows, gateways and loops").

void describe('an exclusive gateway with flows without a condition (unconditional-exclusive.bpmn)', async () => {
  const model = await loadModel('unconditional-exclusive.bpmn');

  void test('given no true condition, the first flow without one in document order is the only one taken', () => {
    const run = new Scenario(model).start({ amount: 5 });
    assert.equal(run.state.status, 'completed');
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toPlain'] });
    assert.deepEqual(run.historyOf('elementCompleted'), ['start', 'route', 'plain']);
  });

  void test('given a true condition before them, that flow is taken instead', () => {
    const run = new Scenario(model).start({ amount: 500 });
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toBig'] });
    assert.deepEqual(run.historyOf('elementCompleted'), ['start', 'route', 'big']);
  });
});

void describe('an inclusive gateway with a flow without a condition (unconditional-inclusive.bpmn)', async () => {
  const model = await loadModel('unconditional-inclusive.bpmn');

  void test('given a false condition, only the flow without a condition is taken, not the default', () => {
    const run = new Scenario(model).start({ flag: false });
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toAlways'] });
    assert.equal(run.state.status, 'completed');
  });

  void test('given a true condition, both it and the flow without a condition are taken', () => {
    const run = new Scenario(model).start({ flag: true });
    const decision = run.history().find((e) => e.kind === 'gatewayDecision');
    assert.deepEqual(decision?.data, { taken: ['toAlways', 'toSometimes'] });
    assert.deepEqual(run.historyOf('elementCompleted').sort(), ['always', 'fork', 'sometimes', 'start']);
  });
});
