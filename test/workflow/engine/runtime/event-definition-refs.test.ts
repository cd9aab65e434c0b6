import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('events naming a top-level event definition (event-definition-refs.bpmn)', async () => {
  const model = await loadModel('event-definition-refs.bpmn');

  void test('each event reads the definition it references', () => {
    const kinds = ['wait', 'fail', 'caught', 'notify'].map((id) => {
      const element = model.elements[id];
      return element !== undefined && 'eventDefinition' in element ? element.eventDefinition : null;
    });
    assert.deepEqual(kinds, [
      { kind: 'timer', timer: { kind: 'duration', value: 'PT1H', isExpression: false } },
      { kind: 'error', errorCode: 'FAILED', errorName: 'Failure' },
      { kind: 'error', errorCode: 'FAILED', errorName: 'Failure' },
      { kind: 'signal', signalName: 'done-signal' },
    ]);
  });

  void test('the timer waits, the error end event throws its error to the boundary, the signal is thrown', () => {
    const run = new Scenario(model).start();
    assert.equal(run.wait('wait').kind, 'timer');
    run.complete('wait');
    assert.equal(run.state.status, 'completed');
    const thrown = run.history().find((entry) => entry.kind === 'errorThrown');
    assert.deepEqual(thrown?.data, { errorCode: 'FAILED' });
    assert.ok(run.historyOf('elementCompleted').includes('caught'));
    assert.deepEqual(
      run.effectsOf('signalThrown').map((effect) => effect.signalName),
      ['done-signal'],
    );
    assert.ok(run.historyOf('elementCompleted').includes('handled'));
  });
});
