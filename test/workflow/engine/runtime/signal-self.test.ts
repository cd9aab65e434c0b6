import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('a signal thrown in an instance reaches its own catches at once (signal-self.bpmn)', async () => {
  const model = await loadModel('signal-self.bpmn');

  void test('a signal end event fires the non-interrupting boundary of the sub-process it ends', () => {
    const run = new Scenario(model).start().complete('ring');
    assert.deepEqual(
      run.effectsOf('signalThrown').map((effect) => effect.signalName),
      ['bell'],
    );
    assert.deepEqual(run.openWaits(), ['after', 'deaf', 'heard']);
    assert.ok(run.historyOf('elementCompleted').includes('onBell'));
    assert.equal(run.historyOf('elementCompleted').includes('deaf'), false, 'another signal is not caught');
  });
});
