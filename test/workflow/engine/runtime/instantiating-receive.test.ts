import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startInstance } from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, Scenario, testContext } from './helpers.js';

void describe('a receive task that instantiates its process (instantiating-receive.bpmn)', async () => {
  const model = await loadModel('instantiating-receive.bpmn');

  void test('it is the process message start; started there, it completes at once with the message', () => {
    assert.deepEqual(model.startEventIds.message, ['receive']);
    const run = new Scenario(model).start({ orderId: 'o-1' }, 'receive');
    assert.deepEqual(run.openWaits(), ['handle']);
    assert.deepEqual(run.historyOf('elementCompleted'), ['receive']);
    assert.deepEqual(run.variables(), { orderId: 'o-1' });
  });

  void test('without a start element named, the process has no none start to begin at', () => {
    const result = startInstance(model, { variables: {} }, testContext());
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.error.code, 'noStartEvent');
  });
});
