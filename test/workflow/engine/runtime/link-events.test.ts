import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('link events (link-events.bpmn)', async () => {
  const model = await loadModel('link-events.bpmn');

  void test('a link throw goes on at the catch of its name in its own scope', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['inner']);
    const activated = run.historyOf('elementActivated');
    assert.deepEqual(activated.slice(activated.indexOf('goInner')), ['goInner', 'innerCatch', 'inner']);
    assert.ok(!activated.includes('nextCatch'), 'the same name at the process level is not reached');
  });

  void test('the process-level link jumps to the process-level catch, and the instance completes', () => {
    const run = new Scenario(model).start();
    run.complete('inner');
    assert.deepEqual(run.openWaits(), ['last']);
    const completed = run.historyOf('elementCompleted');
    assert.deepEqual(completed.slice(completed.indexOf('goLast')), ['goLast', 'nextCatch']);
    run.complete('last');
    assert.equal(run.state.status, 'completed');
  });
});
