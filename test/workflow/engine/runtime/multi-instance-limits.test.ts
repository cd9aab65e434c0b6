import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MULTI_INSTANCE_COPY_BUDGET_BYTES } from '../../../../src/workflow/engine/runtime/multi-instance.js';
import { loadModel, Scenario } from './helpers.js';

// Steps per call and instances per body of these scenarios.
const MAX_STEPS = 50;
const LIMIT = 1_000;

void describe('multi-instance limits (multi-instance-limits.bpmn)', async () => {
  const model = await loadModel('multi-instance-limits.bpmn');
  const scenario = () => new Scenario(model, MAX_STEPS, LIMIT);

  void test('a collection of exactly the limit starts every instance', () => {
    const run = scenario().start({ items: Array.from({ length: LIMIT }, (_, i) => i) });
    assert.equal(run.waitsAt('work').length, LIMIT);
    assert.deepEqual(run.incidents(), []);
  });

  void test('a collection over the limit is an incident on the activity, and nothing of the body is created', () => {
    const run = scenario().start({ items: Array.from({ length: LIMIT + 1 }, (_, i) => i) });
    const [incident, ...others] = run.incidents();
    assert.deepEqual(others, []);
    assert.equal(incident?.kind, 'multiInstanceLimit');
    assert.equal(incident?.elementId, 'work');
    assert.equal(
      incident?.message,
      "multi-instance 'work' stopped: its input collection has 1001 items, more than the limit of 1000 instances (WORKFLOW_MAX_MULTI_INSTANCE)",
    );
    assert.equal(run.state.status, 'incident');
    assert.deepEqual(run.openWaits(), []);
    assert.deepEqual(run.tokens(), ['work'], 'only the body token, failed');
    assert.equal(run.historyOf('elementActivated').filter((id) => id === 'work').length, 0);
  });

  void test('a sequential loop cardinality over the limit is an incident too; a retry after fixing it runs', () => {
    const run = scenario().start({ n: LIMIT + 5 });
    const [incident] = run.incidents();
    assert.equal(incident?.elementId, 'count');
    assert.match(incident?.message ?? '', /its loop cardinality is 1005, more than the limit of 1000/);
    run.send({ type: 'setVariables', variables: { n: 2 } });
    run.send({ type: 'retryIncident', incidentId: incident?.incidentId ?? '' });
    assert.deepEqual(run.incidents(), []);
    assert.deepEqual(run.openWaits(), ['count']);
  });

  void test('parallel instances that would copy more variables than the budget are an incident', () => {
    const big = 'x'.repeat(Math.ceil(MULTI_INSTANCE_COPY_BUDGET_BYTES / 500));
    const run = scenario().start({ items: Array.from({ length: 600 }, (_, i) => i), big });
    const [incident] = run.incidents();
    assert.equal(incident?.kind, 'multiInstanceLimit');
    assert.match(
      incident?.message ?? '',
      /600 parallel instances would each copy the \d+ bytes of variables/,
    );
    assert.deepEqual(run.openWaits(), []);
  });

  void test('the instances of a body do not use up the step bound of the call', () => {
    // 10 × 50 steps is the call's bound without the body's instances.
    const run = scenario().start({ m: 900 });
    assert.deepEqual(run.incidents(), []);
    assert.equal(run.state.status, 'completed');
  });

  void test('a loop through a large body still stops at the step bound', () => {
    const run = scenario().start({ m: 900, loop: true });
    const kinds = run.incidents().map((incident) => incident.kind);
    assert.ok(kinds.length > 0 && kinds.every((kind) => kind === 'stepLimit'), JSON.stringify(kinds));
    assert.equal(run.state.status, 'incident');
  });
});
