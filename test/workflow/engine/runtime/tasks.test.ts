import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startInstance } from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, Scenario, testContext } from './helpers.js';

void describe('external and user tasks (order-tasks.bpmn)', async () => {
  const model = await loadModel('order-tasks.bpmn');

  void test('given a start, the instance waits at the external task with its job', () => {
    const run = new Scenario(model).start({ orderId: 7, owner: 'ann', region: 'north' });
    assert.equal(run.state.status, 'running');
    assert.deepEqual(run.openWaits(), ['charge']);
    const wait = run.wait('charge');
    assert.equal(wait.kind, 'externalTask');
    assert.ok(wait.kind === 'externalTask');
    assert.equal(wait.topic, 'payments');
    assert.equal(wait.retries, 5);
    assert.deepEqual(wait.headers, { priority: 'high' });
    assert.deepEqual(wait.variables, { orderId: 7, owner: 'ann', region: 'north' });
    assert.deepEqual(run.historyOf('elementActivated'), ['start', 'charge']);
    assert.deepEqual(run.historyOf('flowTaken'), ['f1']);
  });

  void test('when the worker completes, the variables reach the root and a user task opens with its assignment', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.complete('charge', { paid: true });
    assert.equal(run.variables().paid, true);
    const wait = run.wait('review');
    assert.ok(wait.kind === 'userTask');
    assert.equal(wait.assignee, 'ann');
    assert.deepEqual(wait.candidateGroups, ['sales', 'north']);
    assert.deepEqual(wait.candidateUsers, ['ann', 'bob']);
    assert.equal(wait.dueDate, '2030-02-01T00:00:00Z');
    assert.equal(wait.formKey, 'review-form');
    assert.equal(wait.name, 'Review order');
    const closed = run.effectsOf('waitClosed');
    assert.deepEqual(
      closed.map((c) => [c.elementId, c.reason]),
      [['charge', 'completed']],
    );
  });

  void test('when the person completes, the instance completes and says so', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.complete('charge').complete('review', { approved: true });
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(run.tokens(), []);
    assert.deepEqual(run.openWaits(), []);
    assert.deepEqual(run.effectsOf('instanceEnded'), [{ type: 'instanceEnded', status: 'completed' }]);
    assert.equal(run.variables().approved, true);
    assert.deepEqual(run.historyOf('elementCompleted'), ['start', 'charge', 'review', 'done']);
  });

  void test('an assignee that is not a name raises an incident at the user task', () => {
    const run = new Scenario(model).start({ owner: { name: 'ann' }, region: 'north' });
    run.complete('charge');
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'review');
    assert.equal(incident?.kind, 'expression');
    assert.match(incident?.message ?? '', /assignee: expected a string/);
    assert.deepEqual(run.openWaits(), []);
  });

  void test('a job that runs out of retries becomes an incident; retrying opens a new wait', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const first = run.wait('charge');
    run.send({ type: 'fail', waitId: first.waitId, message: 'card declined' });
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.ok(incident !== undefined);
    assert.equal(incident.kind, 'jobFailed');
    assert.equal(incident.waitId, first.waitId);
    assert.equal(incident.message, 'card declined');
    assert.deepEqual(run.openWaits(), []);
    run.send({ type: 'retryIncident', incidentId: incident.incidentId });
    assert.equal(run.state.status, 'running');
    const second = run.wait('charge');
    assert.notEqual(second.waitId, first.waitId);
    assert.deepEqual(
      run.effectsOf('incidentResolved').map((e) => [e.incidentId, e.reason]),
      [[incident.incidentId, 'retried']],
    );
    run.complete('charge').complete('review');
    assert.equal(run.state.status, 'completed');
  });

  void test('an unknown or already closed wait is refused with a typed error and no change', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const wait = run.wait('charge');
    const unknown = run.try({ type: 'complete', waitId: 'nope' });
    assert.deepEqual(unknown.ok ? null : unknown.error.code, 'waitNotFound');
    run.complete('charge');
    const again = run.try({ type: 'complete', waitId: wait.waitId });
    assert.deepEqual(again.ok ? null : again.error.code, 'waitNotFound');
    const noIncident = run.try({ type: 'retryIncident', incidentId: 'nope' });
    assert.deepEqual(noIncident.ok ? null : noIncident.error.code, 'incidentNotFound');
  });

  void test('an ended instance refuses every event', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.send({ type: 'cancel' });
    const result = run.try({ type: 'setVariables', variables: { a: 1 } });
    assert.equal(result.ok ? null : result.error.code, 'instanceEnded');
  });

  void test('cancel withdraws every wait and ends the instance as cancelled', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.send({ type: 'cancel' });
    assert.equal(run.state.status, 'cancelled');
    assert.deepEqual(run.openWaits(), []);
    assert.deepEqual(run.tokens(), []);
    assert.deepEqual(
      run.effectsOf('waitClosed').map((e) => [e.elementId, e.reason]),
      [['charge', 'cancelled']],
    );
    assert.deepEqual(run.effectsOf('instanceEnded'), [{ type: 'instanceEnded', status: 'cancelled' }]);
  });

  void test('cancel resolves open incidents', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.send({ type: 'fail', waitId: run.wait('charge').waitId, message: 'down' });
    run.send({ type: 'cancel' });
    assert.deepEqual(run.incidents(), []);
    assert.deepEqual(
      run.effectsOf('incidentResolved').map((e) => e.reason),
      ['cancelled'],
    );
  });

  void test('setVariables writes to the root scope and records it', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    run.send({ type: 'setVariables', variables: { note: 'rush' } });
    assert.equal(run.variables().note, 'rush');
    const entry = run.history().at(-1);
    assert.equal(entry?.kind, 'variablesUpdated');
    assert.deepEqual(entry?.data.variables, { note: 'rush' });
  });

  void test('variables that are not JSON are refused, not dropped', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const bad = run.try({
      type: 'complete',
      waitId: run.wait('charge').waitId,
      variables: { when: new Date() } as never,
    });
    assert.equal(bad.ok ? null : bad.error.code, 'invalidVariables');
    assert.match(bad.ok ? '' : bad.error.message, /variables\.when/);
    const nan = run.try({ type: 'setVariables', variables: { n: Number.NaN } });
    assert.equal(nan.ok ? null : nan.error.code, 'invalidVariables');
  });

  void test('state and effects never share objects with the caller', () => {
    const input = { owner: 'ann', region: 'north', order: { lines: [1, 2] } };
    const run = new Scenario(model).start(input);
    input.order.lines.push(3);
    assert.deepEqual(run.variables().order, { lines: [1, 2] });
    const before = JSON.stringify(run.state);
    const payload = { result: { ok: true } };
    const result = run.try({ type: 'complete', waitId: run.wait('charge').waitId, variables: payload });
    assert.ok(result.ok);
    assert.equal(JSON.stringify(run.state), before, 'the input state is not changed');
    payload.result.ok = false;
    const root = result.state.scopes[result.state.rootScopeId];
    assert.deepEqual(root?.variables.result, { ok: true });
  });

  void test('history entries carry the element type and the context time', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const [started, activated] = run.history();
    assert.deepEqual(started?.kind, 'instanceStarted');
    assert.equal(started?.elementType, 'process');
    assert.equal(activated?.elementType, 'startEvent');
    assert.equal(activated?.at, '2030-01-02T03:04:05.000Z');
    const flow = run.history().find((e) => e.kind === 'flowTaken');
    assert.equal(flow?.elementType, 'sequenceFlow');
    assert.deepEqual(flow?.data, { sourceId: 'start', targetId: 'charge' });
  });
});

void describe('starting', async () => {
  const model = await loadModel('order-tasks.bpmn');

  void test('a start event that is not one of the process is refused', () => {
    const result = startInstance(model, { variables: {}, startEventId: 'charge' }, testContext());
    assert.equal(result.ok ? null : result.error.code, 'noStartEvent');
  });

  void test('start variables that are not JSON are refused with their path', () => {
    const result = startInstance(model, { variables: { a: [1, () => 2] } as never }, testContext());
    assert.equal(result.ok ? null : result.error.code, 'invalidVariables');
    assert.match(result.ok ? '' : result.error.message, /variables\.a\[1\]/);
  });

  void test('ids come from the context, so two runs give the same result', () => {
    const one = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const two = new Scenario(model).start({ owner: 'ann', region: 'north' });
    assert.deepEqual(one.state, two.state);
    assert.deepEqual(one.effects, two.effects);
  });
});

void describe('malformed events', async () => {
  const model = await loadModel('order-tasks.bpmn');

  void test('an event of an unknown type is refused', () => {
    const run = new Scenario(model).start({ owner: 'ann', region: 'north' });
    const result = run.try({ type: 'resume' } as never);
    assert.equal(result.ok ? null : result.error.code, 'notApplicable');
  });
});
