import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel, Scenario } from './helpers.js';

void describe('embedded sub-process (sub-process.bpmn)', async () => {
  const model = await loadModel('sub-process.bpmn');

  void test('entering the sub-process makes a local scope with the mapped input', () => {
    const run = new Scenario(model).start({ amount: 21 });
    assert.deepEqual(run.tokens(), ['check', 'verify']);
    const wait = run.wait('verify');
    assert.ok(wait.kind === 'externalTask');
    assert.deepEqual(wait.variables, { amount: 21, limit: 42 });
    assert.equal(run.variables().limit, undefined, 'the input stays local to the sub-process');
    assert.equal(Object.keys(run.state.scopes).length, 2);
  });

  void test('when the sub-process ends, its output mapping reaches the root and its scope goes', () => {
    const run = new Scenario(model).start({ amount: 21 });
    run.complete('verify', { verdict: 'ok' });
    assert.deepEqual(run.openWaits(), ['after']);
    assert.equal(run.variables().checked, 'ok');
    assert.equal(run.variables().verdict, 'ok', 'the inner task set a variable no scope defines: the root');
    assert.equal(Object.keys(run.state.scopes).length, 1);
    assert.deepEqual(run.historyOf('elementCompleted').slice(-3), ['valid', 'inEnd', 'check']);
  });

  void test('a completion variable goes to the nearest scope that defines it, else to the root', () => {
    const run = new Scenario(model).start({ amount: 1 });
    const subScope = run.state.tokens[run.wait('verify').tokenId]?.scopeId;
    run.complete('verify', { limit: 99, verdict: 'ok' });
    const updates = run.history().filter((e) => e.kind === 'variablesUpdated');
    const scopeOf = (name: string) =>
      updates.find((e) => Object.keys(e.data.variables as object).includes(name))?.data.scopeId;
    assert.equal(scopeOf('limit'), subScope, 'limit is defined by the sub-process input');
    assert.equal(scopeOf('verdict'), run.state.rootScopeId);
    assert.equal(run.variables().limit, undefined);
  });

  void test('an error end event is caught by the error boundary of the sub-process', () => {
    const run = new Scenario(model).start({ amount: 1 });
    run.complete('verify', { verdict: 'invalid' });
    assert.deepEqual(run.tokens(), ['fixIt']);
    assert.deepEqual(run.openWaits(), ['fixIt']);
    assert.ok(run.historyOf('elementTerminated').includes('check'));
    const thrown = run.history().filter((e) => e.kind === 'errorThrown');
    assert.deepEqual(
      thrown.map((e) => [e.elementId, e.data.errorCode]),
      [
        ['invalidEnd', 'INVALID'],
        ['check', 'INVALID'],
      ],
    );
    assert.equal(Object.keys(run.state.scopes).length, 1);
    run.complete('fixIt');
    assert.equal(run.state.status, 'completed');
  });

  void test('an error that nothing catches stops its end event with an incident', () => {
    const run = new Scenario(model).start({ amount: 1 });
    run.complete('verify', { verdict: 'fatal' });
    assert.equal(run.state.status, 'incident');
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'unhandledError');
    assert.equal(incident?.elementId, 'fatalEnd');
    assert.deepEqual(run.tokens(), ['check', 'fatalEnd']);
  });

  void test('a terminate end inside a sub-process ends only the sub-process, which completes', () => {
    const run = new Scenario(model).start({ amount: 1 });
    run.complete('verify', { verdict: 'stop' });
    assert.equal(run.state.status, 'running');
    assert.deepEqual(run.openWaits(), ['after']);
    assert.equal(run.variables().checked, 'stop');
  });

  void test('cancelling withdraws the waits inside the sub-process', () => {
    const run = new Scenario(model).start({ amount: 1 });
    run.send({ type: 'cancel' });
    assert.deepEqual(run.historyOf('elementTerminated').sort(), ['check', 'verify']);
    assert.deepEqual(
      run.effectsOf('waitClosed').map((e) => e.elementId),
      ['verify'],
    );
    assert.equal(Object.keys(run.state.scopes).length, 1);
  });
});

void describe('terminate end event (terminate.bpmn)', async () => {
  const model = await loadModel('terminate.bpmn');

  void test('a terminate end at the root ends every token and the instance as terminated', () => {
    const run = new Scenario(model).start();
    assert.deepEqual(run.openWaits(), ['quick', 'slow']);
    run.complete('quick');
    assert.equal(run.state.status, 'terminated');
    assert.deepEqual(run.tokens(), []);
    assert.deepEqual(run.openWaits(), []);
    assert.deepEqual(
      run.effectsOf('waitClosed').map((e) => [e.elementId, e.reason]),
      [
        ['quick', 'completed'],
        ['slow', 'interrupted'],
      ],
    );
    assert.deepEqual(run.effectsOf('instanceEnded'), [{ type: 'instanceEnded', status: 'terminated' }]);
  });

  void test('when the other branch ends first, the instance still ends as terminated', () => {
    const run = new Scenario(model).start();
    run.complete('slow');
    assert.equal(run.state.status, 'running');
    run.complete('quick');
    assert.equal(run.state.status, 'terminated');
  });
});

void describe('BPMN errors from workers (task-errors.bpmn)', async () => {
  const model = await loadModel('task-errors.bpmn');

  void test('job retries may be an expression', () => {
    const run = new Scenario(model).start({ maxRetries: 7 });
    const wait = run.wait('pay');
    assert.ok(wait.kind === 'externalTask');
    assert.equal(wait.retries, 7);
  });

  void test('retries that are not a whole number are an incident', () => {
    const run = new Scenario(model).start({ maxRetries: 'many' });
    assert.equal(run.incidents()[0]?.elementId, 'pay');
    assert.match(run.incidents()[0]?.message ?? '', /retries/);
  });

  void test('a matching error boundary on the task catches the error and gets its variables', () => {
    const run = new Scenario(model).start({ maxRetries: 1 });
    const wait = run.wait('pay');
    run.send({
      type: 'bpmnError',
      waitId: wait.waitId,
      errorCode: 'CARD_DECLINED',
      variables: { reason: 'expired' },
    });
    assert.deepEqual(run.tokens(), ['outer', 'retryPay']);
    assert.equal(run.variables().reason, 'expired');
    assert.deepEqual(
      run.effectsOf('waitClosed').map((e) => [e.elementId, e.reason]),
      [['pay', 'errorThrown']],
    );
    run.complete('retryPay');
    assert.deepEqual(run.openWaits(), ['done']);
  });

  void test('another code goes up to the catch-all boundary of the enclosing sub-process', () => {
    const run = new Scenario(model).start({ maxRetries: 1 });
    run.send({ type: 'bpmnError', waitId: run.wait('pay').waitId, errorCode: 'FRAUD' });
    assert.deepEqual(run.tokens(), ['failed']);
    assert.deepEqual(run.historyOf('elementTerminated').sort(), ['outer', 'pay']);
    assert.equal(Object.keys(run.state.scopes).length, 1);
  });

  void test('an output mapping applies the completion variables locally and maps the result', () => {
    const run = new Scenario(model).start({ maxRetries: 1 });
    run.complete('pay', { result: { id: 'r-1' } });
    assert.equal(run.variables().receipt, 'r-1');
    assert.equal(run.variables().result, undefined);
    assert.deepEqual(run.openWaits(), ['done']);
  });

  void test('a bpmnError on a wait that is not an activity is refused', () => {
    const run = new Scenario(model).start({ maxRetries: 1 });
    const result = run.try({ type: 'bpmnError', waitId: 'missing', errorCode: 'X' });
    assert.equal(result.ok ? null : result.error.code, 'waitNotFound');
  });
});

void describe('uncaught BPMN errors (uncaught-error.bpmn)', async () => {
  const model = await loadModel('uncaught-error.bpmn');

  void test('a worker error nothing catches is an incident on the task; retry opens the job again', () => {
    const run = new Scenario(model).start();
    const wait = run.wait('work');
    run.send({ type: 'bpmnError', waitId: wait.waitId, errorCode: 'NOPE', message: 'bad data' });
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'unhandledError');
    assert.equal(incident?.waitId, wait.waitId);
    assert.match(incident?.message ?? '', /NOPE.*bad data/);
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.deepEqual(run.openWaits(), ['work']);
  });

  void test('an error end event at the root with no catcher is an incident at the end event', () => {
    const run = new Scenario(model).start();
    run.complete('work');
    assert.equal(run.state.status, 'incident');
    assert.equal(run.incidents()[0]?.elementId, 'boom');
    assert.deepEqual(run.tokens(), ['boom']);
  });
});

void describe('error event sub-processes (error-event-sub-process.bpmn)', async () => {
  const model = await loadModel('error-event-sub-process.bpmn');

  void test('an error caught by the event sub-process of the sub-process ends only that sub-process scope', () => {
    const run = new Scenario(model).start();
    run.send({
      type: 'bpmnError',
      waitId: run.wait('work').waitId,
      errorCode: 'INNER',
      variables: { why: 'x' },
    });
    assert.deepEqual(run.openWaits(), ['patch', 'side']);
    assert.equal(run.variables().why, 'x');
    run.complete('patch');
    assert.deepEqual(run.tokens(), ['join', 'side'], 'the sub-process completed and reached the join');
    run.complete('side');
    assert.equal(run.state.status, 'completed');
  });

  void test('an error the sub-process does not handle reaches the root event sub-process, which interrupts everything', () => {
    const run = new Scenario(model).start();
    run.send({ type: 'bpmnError', waitId: run.wait('work').waitId, errorCode: 'OUTER' });
    assert.deepEqual(run.openWaits(), ['handle']);
    assert.deepEqual(run.historyOf('elementTerminated').sort(), ['side', 'stage', 'work']);
    run.complete('handle');
    assert.equal(run.state.status, 'completed');
    assert.equal(Object.keys(run.state.scopes).length, 1);
  });

  void test('an error nobody handles is an incident', () => {
    const run = new Scenario(model).start();
    run.send({ type: 'bpmnError', waitId: run.wait('work').waitId, errorCode: 'OTHER' });
    assert.equal(run.incidents()[0]?.kind, 'unhandledError');
    assert.deepEqual(run.openWaits(), ['side']);
  });
});
