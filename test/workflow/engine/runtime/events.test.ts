import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('catch events, event-based gateway, boundary events, throws (events.bpmn)', async () => {
  const model = await loadModel('events.bpmn');
  const VARS = { orderId: 42, deadline: '2030-03-01T00:00:00Z' };

  /** Runs up to the user task `work`. */
  function atWork(): Scenario {
    return new Scenario(model)
      .start(VARS)
      .complete('cool')
      .complete('payment')
      .complete('go')
      .complete('docs');
  }

  void test('a timer catch waits with its definition; the driver computes the due date', () => {
    const run = new Scenario(model).start(VARS);
    const wait = run.wait('cool');
    assert.ok(wait.kind === 'timer');
    assert.deepEqual(wait.timer, { kind: 'duration', value: 'PT5M', isExpression: false });
    assert.equal(wait.value, 'PT5M');
  });

  void test('a message catch waits with its name and evaluated correlation key', () => {
    const run = new Scenario(model).start(VARS).complete('cool');
    const wait = run.wait('payment');
    assert.ok(wait.kind === 'message');
    assert.equal(wait.messageName, 'paid');
    assert.equal(wait.correlationKey, '42');
    assert.deepEqual(wait.role, { kind: 'activity' });
  });

  void test('message variables reach the root when it arrives', () => {
    const run = new Scenario(model).start(VARS).complete('cool').complete('payment', { amountPaid: 10 });
    assert.equal(run.variables().amountPaid, 10);
    const wait = run.wait('go');
    assert.ok(wait.kind === 'signal');
    assert.equal(wait.signalName, 'go');
  });

  void test('an event-based gateway opens one wait per branch; the first to fire wins', () => {
    const run = new Scenario(model).start(VARS).complete('cool').complete('payment').complete('go');
    assert.deepEqual(run.openWaits(), ['docs', 'late']);
    const late = run.wait('late');
    assert.ok(late.kind === 'timer');
    assert.equal(late.value, '2030-03-01T00:00:00Z', 'a timer expression is evaluated when the wait opens');
    assert.deepEqual(late.role, { kind: 'eventGateway', flowId: 'toLate', targetElementId: 'late' });
    const docs = run.wait('docs');
    assert.ok(docs.kind === 'message');
    run.complete('late');
    assert.deepEqual(
      run
        .effectsOf('waitClosed')
        .slice(-2)
        .map((e) => [e.elementId, e.reason]),
      [
        ['late', 'completed'],
        ['docs', 'cancelled'],
      ],
    );
    assert.deepEqual(run.tokens(), ['work']);
    const decision = run
      .history()
      .filter((e) => e.kind === 'gatewayDecision')
      .at(-1);
    assert.deepEqual(decision?.data, { taken: ['toLate'] });
  });

  void test('an activity that waits opens the waits of its boundary events', () => {
    const run = atWork();
    assert.deepEqual(run.openWaits(), ['ping', 'remind', 'timeout', 'work']);
    const timeout = run.wait('timeout');
    assert.deepEqual(timeout.role, { kind: 'boundary', boundaryEventId: 'timeout', interrupting: true });
    assert.equal(timeout.tokenId, run.wait('work').tokenId);
  });

  void test('an interrupting timer boundary ends the activity and its other boundary waits', () => {
    const run = atWork().complete('timeout');
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(run.openWaits(), []);
    assert.ok(run.historyOf('elementTerminated').includes('work'));
    assert.deepEqual(run.historyOf('elementCompleted').slice(-2), ['timeout', 'timedOut']);
  });

  void test('a non-interrupting message boundary starts a branch and leaves the activity waiting', () => {
    const run = atWork().complete('ping', { pinged: true });
    assert.deepEqual(run.openWaits(), ['ping', 'pinged', 'remind', 'timeout', 'work']);
    assert.equal(run.variables().pinged, true);
  });

  void test('a non-interrupting message boundary fires again for each message while its activity runs, and closes with it', () => {
    const run = atWork().complete('ping').complete('ping');
    assert.equal(run.waitsAt('pinged').length, 2, 'each message started its own branch');
    assert.equal(run.waitsAt('ping').length, 1);
    run.complete('work');
    assert.deepEqual(run.waitsAt('ping'), [], 'the boundary closed with its activity');
  });

  void test('a non-interrupting timer cycle stays open for its next occurrence', () => {
    const run = atWork().complete('remind').complete('remind');
    assert.equal(run.waitsAt('remind').length, 1);
    assert.equal(run.historyOf('elementCompleted').filter((id) => id === 'reminded').length, 2);
    assert.deepEqual(run.tokens(), ['work']);
  });

  void test('when the activity completes, its boundary waits are withdrawn, and throws become effects', () => {
    const run = atWork().complete('work', { result: 'ok' });
    assert.deepEqual(run.openWaits(), []);
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(
      run
        .effectsOf('waitClosed')
        .slice(-4)
        .map((e) => [e.elementId, e.reason]),
      [
        ['work', 'completed'],
        ['timeout', 'cancelled'],
        ['ping', 'cancelled'],
        ['remind', 'cancelled'],
      ],
    );
    const [message] = run.effectsOf('messageThrown');
    assert.equal(message?.messageName, 'ping');
    assert.equal(message?.variables.result, 'ok');
    const [signal] = run.effectsOf('signalThrown');
    assert.equal(signal?.signalName, 'go');
    assert.equal(signal?.elementId, 'flare');
  });

  void test('a correlation key that cannot be evaluated is an incident at the catch event', () => {
    const run = new Scenario(model).start({ orderId: { nested: true } }).complete('cool');
    assert.equal(run.incidents()[0]?.elementId, 'payment');
    assert.match(run.incidents()[0]?.message ?? '', /correlation key/);
  });

  void test('failing a boundary wait is refused: it is not the work of the element', () => {
    const run = atWork();
    const result = run.try({ type: 'fail', waitId: run.wait('timeout').waitId, message: 'x' });
    assert.equal(result.ok ? null : result.error.code, 'notApplicable');
  });
});

void describe('tasks done by the driver (other-tasks.bpmn)', async () => {
  const model = await loadModel('other-tasks.bpmn');

  void test('manual and plain tasks pass through; a business rule task waits for its decision', () => {
    const run = new Scenario(model).start({ customer: 'c-1', score: 3 });
    assert.deepEqual(run.historyOf('elementCompleted'), ['start', 'note', 'plain']);
    const wait = run.wait('rate');
    assert.ok(wait.kind === 'decision');
    assert.equal(wait.decision.decisionId, 'rating');
    assert.equal(wait.decision.resultVariable, 'rating');
    assert.deepEqual(wait.variables, { customer: 'c-1', score: 3 });
  });

  void test('a weft pipeline script and a connector service task wait with their extension element', () => {
    const run = new Scenario(model).start({ customer: 'c-1' }).complete('rate', { rating: 'A' });
    const script = run.wait('shape');
    assert.ok(script.kind === 'script');
    assert.equal(script.extension.name, 'pipeline');
    assert.equal(script.variables.rating, 'A');
    run.complete('shape', { shaped: true });
    const connector = run.wait('fetch');
    assert.ok(connector.kind === 'script');
    assert.equal(connector.extension.name, 'http');
    assert.equal(connector.extension.attributes.url, 'https://example.test');
  });

  void test('a send task waits for the driver to publish its message', () => {
    const run = new Scenario(model)
      .start({ customer: 'c-1' })
      .complete('rate')
      .complete('shape')
      .complete('fetch');
    const wait = run.wait('invoice');
    assert.ok(wait.kind === 'send');
    assert.equal(wait.messageName, 'invoice');
  });

  void test('a call activity passes its in mappings and maps its out mappings back', () => {
    const run = new Scenario(model)
      .start({ customer: 'c-1' })
      .complete('rate')
      .complete('shape')
      .complete('fetch')
      .complete('invoice');
    const wait = run.wait('child');
    assert.ok(wait.kind === 'callActivity');
    assert.equal(wait.calledElement.processKey, 'billing');
    assert.deepEqual(
      wait.variables,
      { who: 'c-1' },
      'camunda:in without variables="all" passes only the mapped ones',
    );
    run.complete('child', { invoiceNo: 'INV-1', secret: 'x' });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().invoiceNumber, 'INV-1');
    assert.equal(run.variables().secret, undefined);
  });
});

void describe('message start and worker-implemented throws (throws.bpmn)', async () => {
  const model = await loadModel('throws.bpmn');

  void test('a message throw implemented by a job waits for its worker and throws nothing itself', () => {
    const run = new Scenario(model).start({ to: 'ann' });
    const wait = run.wait('tell');
    assert.ok(wait.kind === 'externalTask');
    assert.equal(wait.topic, 'mailer');
    assert.equal(wait.retries, 3, 'the default when the model gives none');
    assert.deepEqual(run.effectsOf('messageThrown'), []);
    run.complete('tell');
    assert.equal(run.state.status, 'completed');
  });

  void test('an instance started at a message start event passes it without throwing', () => {
    const run = new Scenario(model).start({ order: 1 }, 'placed');
    assert.deepEqual(run.openWaits(), ['greet']);
    assert.deepEqual(run.effectsOf('messageThrown'), []);
    assert.deepEqual(run.history()[0]?.data, { startEventId: 'placed', variables: { order: 1 } });
  });
});
