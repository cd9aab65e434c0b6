import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, permutations, Scenario } from './helpers.js';

const START = { recipients: ['ann', 'bob', 'cy'], approvers: ['x', 'y', 'z'], packCount: 2 };

void describe('multi-instance activities (multi-instance.bpmn)', async () => {
  const model = await loadModel('multi-instance.bpmn');

  void test('a parallel multi-instance task opens one wait per item, each with loopCounter and item', () => {
    const run = new Scenario(model).start(START);
    const waits = run.waitsAt('notify');
    assert.equal(waits.length, 3);
    assert.deepEqual(
      waits.map((w) => (w.kind === 'externalTask' ? [w.variables.loopCounter, w.variables.recipient] : null)),
      [
        [0, 'ann'],
        [1, 'bob'],
        [2, 'cy'],
      ],
    );
    const body = waits[0] && run.state.scopes[run.state.tokens[waits[0].tokenId]?.scopeId ?? ''];
    assert.deepEqual(body?.variables, {
      nrOfInstances: 3,
      nrOfActiveInstances: 3,
      nrOfCompletedInstances: 0,
    });
  });

  for (const order of permutations([0, 1, 2])) {
    void test(`the output collection is in item order whatever the completion order (${order.join(', ')})`, () => {
      const run = new Scenario(model).start(START);
      const waits = run.waitsAt('notify');
      for (const index of order) {
        const wait = waits[index];
        assert.ok(wait !== undefined);
        run.send({ type: 'complete', waitId: wait.waitId, variables: { receipt: `r${index}` } });
      }
      assert.deepEqual(run.variables().receipts, ['r0', 'r1', 'r2']);
      assert.equal(run.variables().loopCounter, undefined, 'loop variables stay in the instance scopes');
      assert.equal(run.variables().recipient, undefined);
      assert.deepEqual(run.openWaits(), ['approve']);
    });
  }

  void test('a sequential multi-instance runs one instance at a time and stops on its completion condition', () => {
    const run = new Scenario(model).start(START);
    for (const wait of run.waitsAt('notify')) run.send({ type: 'complete', waitId: wait.waitId });
    const first = run.wait('approve');
    assert.ok(first.kind === 'userTask');
    assert.equal(first.assignee, 'x');
    run.complete('approve', { ok: true });
    const second = run.wait('approve');
    assert.ok(second.kind === 'userTask');
    assert.equal(second.assignee, 'y');
    run.complete('approve', { ok: true });
    assert.equal(run.waitsAt('approve').length, 0, 'the third approver is never asked');
    assert.equal(
      run.historyOf('elementActivated').filter((id) => id === 'approve').length,
      3,
      'body + 2 instances',
    );
    assert.deepEqual(run.openWaits(), ['pack', 'pack']);
  });

  void test('a multi-instance sub-process by cardinality runs its children in one scope per instance', () => {
    const run = new Scenario(model).start(START);
    for (const wait of run.waitsAt('notify')) run.send({ type: 'complete', waitId: wait.waitId });
    run.complete('approve').complete('approve');
    const packs = run.waitsAt('pack');
    assert.deepEqual(
      packs.map((w) => (w.kind === 'externalTask' ? w.variables.loopCounter : null)),
      [0, 1],
    );
    for (const wait of packs) run.send({ type: 'complete', waitId: wait.waitId });
    assert.equal(run.state.status, 'completed');
    assert.equal(Object.keys(run.state.scopes).length, 1);
  });

  void test('an empty collection completes the activity at once', () => {
    const run = new Scenario(model).start({ ...START, recipients: [] });
    assert.deepEqual(run.variables().receipts, []);
    assert.deepEqual(run.openWaits(), ['approve']);
  });

  void test('an input collection that is not a list is an incident on the activity', () => {
    const run = new Scenario(model).start({ ...START, recipients: 'ann' });
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'notify');
    assert.match(incident?.message ?? '', /not a list/);
    run.send({ type: 'setVariables', variables: { recipients: ['ann'] } });
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.deepEqual(run.openWaits(), ['notify']);
  });

  void test('a BPMN error from one instance is caught by the boundary of the body and ends every instance', () => {
    const run = new Scenario(model).start(START);
    const [first] = run.waitsAt('notify');
    run.send({ type: 'bpmnError', waitId: first?.waitId ?? '', errorCode: 'STOP' });
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(run.openWaits(), []);
    assert.equal(run.effectsOf('waitClosed').filter((e) => e.reason === 'interrupted').length, 2);
    assert.equal(Object.keys(run.state.scopes).length, 1);
  });

  void test('cancelling withdraws every instance', () => {
    const run = new Scenario(model).start(START);
    run.send({ type: 'cancel' });
    assert.equal(run.effectsOf('waitClosed').filter((e) => e.reason === 'cancelled').length, 3);
    assert.equal(run.state.status, 'cancelled');
  });
});

void describe('input and output mappings (mappings.bpmn)', async () => {
  const model = await loadModel('mappings.bpmn');

  void test('inputs are evaluated in order into a local scope the worker sees', () => {
    const run = new Scenario(model).start({ price: 10, quantity: 3 });
    const wait = run.wait('quote');
    assert.ok(wait.kind === 'externalTask');
    assert.deepEqual(wait.variables, { price: 10, quantity: 3, net: 30, gross: 36, currency: 'EUR' });
    assert.deepEqual(run.variables(), { price: 10, quantity: 3 });
  });

  void test('outputs see the inputs and the completion variables, and may set a path', () => {
    const run = new Scenario(model).start({ price: 10, quantity: 3, order: { id: 9 } });
    run.complete('quote', { shipping: 4 });
    assert.equal(run.state.status, 'completed');
    assert.deepEqual(run.variables(), {
      price: 10,
      quantity: 3,
      order: { id: 9, currency: 'EUR' },
      total: 40,
    });
  });

  void test('an input that fails is an incident before the wait opens', () => {
    const run = new Scenario(model).start({ price: 'ten', quantity: 3 });
    assert.deepEqual(run.openWaits(), []);
    assert.equal(run.incidents()[0]?.elementId, 'quote');
    assert.match(run.incidents()[0]?.message ?? '', /mapping 'net'/);
  });

  void test('an output that fails is an incident; the retry completes with the same variables', () => {
    const run = new Scenario(model).start({ price: 10, quantity: 3 });
    run.complete('quote', { shipping: 'free' });
    const [incident] = run.incidents();
    assert.equal(incident?.retry.action, 'complete');
    assert.deepEqual(run.openWaits(), []);
    assert.deepEqual(run.tokens(), ['quote']);
    // The model cannot change here, so the retry fails the same way: the incident comes back.
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.incidents().length, 1);
    assert.notEqual(run.incidents()[0]?.incidentId, incident?.incidentId);
  });
});

void describe('a loop without a wait state (loop.bpmn)', async () => {
  const model = await loadModel('loop.bpmn');

  void test('a short loop runs to its end in one call', () => {
    const run = new Scenario(model, 100).start({ n: 0, limit: 10 });
    assert.equal(run.state.status, 'completed');
    assert.equal(run.variables().n, 10);
  });

  void test('a loop longer than maxStepsPerCall stops with an incident instead of hanging', () => {
    const run = new Scenario(model, 50).start({ n: 0, limit: 1_000_000 });
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'stepLimit');
    assert.deepEqual(run.openWaits(), []);
    const n = run.variables().n;
    assert.ok(typeof n === 'number' && n > 0 && n < 50);
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.equal(run.incidents()[0]?.kind, 'stepLimit', 'a retry gets a fresh budget and runs further');
    assert.ok((run.variables().n as number) > n);
  });
});
