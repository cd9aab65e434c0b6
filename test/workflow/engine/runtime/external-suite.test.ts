/**
 * Behaviours an external BPMN execution suite (betsy's conformance models, with Camunda 7's engine
 * tests as the reference) asserts, where weft differed: each test gives a model, an event, and the
 * history BPMN 2.0.2 chapter 13 expects.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('an error event sub-process that throws its own error again (esp-rethrow-error.bpmn)', async () => {
  const model = await loadModel('esp-rethrow-error.bpmn');

  void test('given the rethrow, when the error reaches the sub-process, then its boundary event catches it and the event sub-process ran once', () => {
    const run = new Scenario(model).start().complete('work');
    assert.deepEqual(run.openWaits(), ['note'], 'the event sub-process caught the first throw');
    run.complete('note');
    assert.deepEqual(run.incidents(), []);
    assert.deepEqual(run.openWaits(), ['handled']);
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'onBroken').length, 1);
    assert.ok(run.historyOf('elementTerminated').includes('stage'));
    const caughtBy = run
      .history()
      .filter((entry) => entry.kind === 'errorThrown' && entry.data.caughtBy !== undefined)
      .map((entry) => entry.data.caughtBy);
    assert.deepEqual(caughtBy, ['brokenStart', 'caught']);
    run.complete('handled');
    assert.equal(run.state.status, 'completed');
    assert.equal(run.historyOf('elementActivated').includes('after'), false);
  });
});

void describe('a process event sub-process that rethrows the error it caught (esp-rethrow-root.bpmn)', async () => {
  const model = await loadModel('esp-rethrow-root.bpmn');

  void test('given nothing outside catches it, when it is rethrown, then it is an unhandled-error incident at the rethrow, not a loop', () => {
    const run = new Scenario(model).start().complete('work');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'unhandledError');
    assert.equal(incident?.elementId, 'rethrow');
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'onBroken').length, 1);
  });
});

void describe('a non-interrupting escalation event sub-process that escalates the same code (esp-rethrow-escalation.bpmn)', async () => {
  const model = await loadModel('esp-rethrow-escalation.bpmn');

  void test('given the forward, when the sub-process escalates, then the boundary event of the sub-process fires once and the sub-process goes on', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.incidents(), []);
    assert.deepEqual(run.openWaits(), ['managerTask', 'work']);
    const caught = run
      .history()
      .filter((entry) => entry.kind === 'escalationThrown')
      .map((entry) => [entry.elementId, entry.data.caughtBy]);
    assert.deepEqual(caught, [
      ['raise', 'lateStart'],
      ['forward', 'toManager'],
    ]);
    run.complete('work').complete('managerTask').complete('after');
    assert.equal(run.state.status, 'completed');
  });
});

void describe('events whose definition is referenced with eventDefinitionRef (event-definition-ref.bpmn)', async () => {
  const model = await loadModel('event-definition-ref.bpmn');

  void test('given an error end event by reference, when it is reached, then the error boundary event by reference catches it', () => {
    const run = new Scenario(model).start().complete('work');
    assert.deepEqual(run.openWaits(), ['handled']);
    assert.ok(run.historyOf('elementTerminated').includes('stage'));
    assert.equal(run.historyOf('elementActivated').includes('after'), false);
  });

  void test('given a signal boundary event by reference, when the signal arrives, then it fires without interrupting', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['paused', 'work']);
    run.complete('paused');
    assert.deepEqual(run.openWaits(), ['pauseNote', 'paused', 'work']);
  });
});

void describe('two inclusive joins in a loop, each reachable from the other (inclusive-loop-joins.bpmn)', async () => {
  const model = await loadModel('inclusive-loop-joins.bpmn');
  const joining = (run: Scenario) =>
    Object.values(run.state.tokens)
      .filter((token) => token.phase === 'joining')
      .map((token) => token.elementId)
      .sort();

  void test('given a token on each incoming flow of a join, when the last arrives, then it fires although a token elsewhere could come round again', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['check', 'review']);
    assert.deepEqual(joining(run), ['sync']);
    run.complete('check');
    assert.deepEqual(joining(run), ['merge'], 'sync fired: both its flows had a token');
    run.complete('review');
    assert.equal(run.state.status, 'completed', 'merge fired in turn; the joins did not wait for each other');
  });

  void test('given the loop is taken, when both rounds complete, then each join fired once per round', () => {
    const run = new Scenario(model).start().complete('check').complete('review', { again: true });
    assert.deepEqual(run.openWaits(), ['check', 'review']);
    run.complete('review', { again: false }).complete('check');
    assert.equal(run.state.status, 'completed');
    const fired = (id: string) => run.historyOf('elementActivated').filter((entry) => entry === id).length;
    assert.equal(fired('sync'), 2);
    assert.equal(fired('merge'), 2);
  });
});
