import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkInstructions,
  generateInstructions,
  migrateInstance,
  type Effect,
  type Wait,
} from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, Scenario, testContext } from './helpers.js';

const v1 = await loadModel('migrate-v1.bpmn');
const v2 = await loadModel('migrate-v2.bpmn');
const v3 = await loadModel('migrate-v3.bpmn');

function waitsOf(state: { waits: Record<string, Wait> }) {
  return Object.values(state.waits).sort((a, b) => a.elementId.localeCompare(b.elementId));
}

function opened(effects: Effect[]) {
  return effects.flatMap((e) => (e.type === 'waitOpened' ? [e.wait] : []));
}

function closed(effects: Effect[]) {
  return effects.flatMap((e) => (e.type === 'waitClosed' ? [e.waitId] : []));
}

describe('migration of an instance (pure)', () => {
  test('generate maps each element to the same id in the target when their types are compatible', () => {
    const toV2 = generateInstructions(v1, v2);
    assert.deepEqual(
      toV2.map((i) => i.source),
      ['approve', 'charge', 'chargeTimeout', 'cool', 'done', 'start', 'timedOut'],
    );
    assert.ok(toV2.every((i) => i.source === i.target));
    // charge became a user task and approve an external task: neither maps; cool is gone.
    assert.deepEqual(
      generateInstructions(v1, v3).map((i) => i.source),
      ['done', 'start'],
    );
  });

  test('checkInstructions lists every problem of the instructions', () => {
    const problems = checkInstructions(v1, v3, [
      { source: 'charge', target: 'charge' },
      { source: 'cool', target: 'nowhere' },
      { source: 'ghost', target: 'done' },
      { source: 'approve', target: 'approve' },
      { source: 'approve', target: 'approve' },
    ]);
    const messages = problems.map((p) => `${p.elementId}: ${p.message}`);
    assert.ok(
      messages.some((m) =>
        m.includes("'charge' cannot map to 'charge': a serviceTask cannot become a userTask"),
      ),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => m.includes("the target has no element 'nowhere'")));
    assert.ok(messages.some((m) => m.includes("the source has no element 'ghost'")));
    assert.ok(messages.some((m) => m.includes("'approve' is mapped more than once")));
    assert.ok(
      messages.some((m) =>
        m.includes("'approve' cannot map to 'approve': a userTask cannot become a serviceTask"),
      ),
    );
  });

  test('given an instance at charge, migrating to v2 keeps the external task, re-creates the changed timer and opens the new boundary', () => {
    const run = new Scenario(v1).start({ amount: 42 });
    const task = run.wait('charge');
    const oldTimer = run.wait('chargeTimeout');
    const result = migrateInstance({
      source: v1,
      target: v2,
      state: run.state,
      instructions: generateInstructions(v1, v2),
      ctx: testContext(),
      data: { targetDefinitionId: 'v2' },
    });
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const after = waitsOf(result.state);
    assert.deepEqual(
      after.map((w) => w.elementId),
      ['charge', 'chargeCancelled', 'chargeTimeout'],
    );
    assert.equal(result.state.waits[task.waitId]?.kind, 'externalTask', 'the task keeps its id');
    assert.deepEqual(result.movedWaits, [{ waitId: task.waitId, kind: 'externalTask', elementId: 'charge' }]);
    assert.deepEqual(closed(result.effects), [oldTimer.waitId], 'only the changed timer is withdrawn');
    const newOnes = opened(result.effects);
    assert.deepEqual(newOnes.map((w) => w.elementId).sort(), ['chargeCancelled', 'chargeTimeout']);
    const timer = newOnes.find((w) => w.elementId === 'chargeTimeout');
    assert.equal(timer?.kind === 'timer' && timer.value, 'PT2H');
    assert.equal(result.state.scopes[result.state.rootScopeId]?.variables.amount, 42);
    const history = result.effects.flatMap((e) => (e.type === 'history' ? [e.entry] : []));
    assert.deepEqual(
      history.map((h) => [h.kind, h.elementId, h.data]),
      [['migrated', 'shipping', { targetDefinitionId: 'v2' }]],
    );
  });

  test('given an instance at the timer catch cool, the timer is re-created with the target duration', () => {
    const run = new Scenario(v1).start().complete('charge');
    const old = run.wait('cool');
    const result = migrateInstance({
      source: v1,
      target: v2,
      state: run.state,
      instructions: generateInstructions(v1, v2),
      ctx: testContext(),
    });
    assert.ok(result.ok);
    const now = waitsOf(result.state);
    assert.equal(now.length, 1);
    assert.notEqual(now[0]?.waitId, old.waitId);
    assert.equal(now[0]?.kind === 'timer' && now[0].value, 'PT30M');
    assert.deepEqual(closed(result.effects), [old.waitId]);
  });

  test('an unchanged trigger keeps its wait, and after migration the instance follows the target', () => {
    const run = new Scenario(v1).start().complete('charge');
    const v1cool = run.wait('cool');
    const identity = migrateInstance({
      source: v1,
      target: v1,
      state: run.state,
      instructions: generateInstructions(v1, v1),
      ctx: testContext(),
    });
    assert.ok(identity.ok);
    assert.deepEqual(closed(identity.effects), [], 'nothing changes under the same model');
    assert.equal(identity.state.waits[v1cool.waitId]?.elementId, 'cool');

    const migrated = new Scenario(v2);
    const result = migrateInstance({
      source: v1,
      target: v2,
      state: new Scenario(v1).start().complete('charge').complete('cool').state,
      instructions: generateInstructions(v1, v2),
      ctx: migrated.ctx,
    });
    assert.ok(result.ok);
    migrated.state = result.state;
    migrated.complete('approve');
    assert.deepEqual(migrated.openWaits(), ['archive'], 'v2 goes on to archive after approve');
  });

  test('an active element left unmapped or mapped to an incompatible type is refused, every problem listed', () => {
    const run = new Scenario(v1).start();
    const unmapped = migrateInstance({
      source: v1,
      target: v3,
      state: run.state,
      instructions: generateInstructions(v1, v3),
      ctx: testContext(),
    });
    assert.ok(!unmapped.ok);
    assert.deepEqual(
      unmapped.problems.map((p) => p.elementId),
      ['charge'],
    );
    assert.match(
      unmapped.problems[0]?.message ?? '',
      /the active element 'charge' \(serviceTask\) is not mapped/,
    );
    const wrong = migrateInstance({
      source: v1,
      target: v3,
      state: run.state,
      instructions: [
        { source: 'charge', target: 'charge' },
        { source: 'cool', target: 'approve' },
      ],
      ctx: testContext(),
    });
    assert.ok(!wrong.ok);
    assert.equal(wrong.problems.length, 2, JSON.stringify(wrong.problems));
  });

  test('a boundary event the plan does not map is withdrawn', () => {
    const run = new Scenario(v1).start();
    const timer = run.wait('chargeTimeout');
    const instructions = generateInstructions(v1, v2).filter((i) => i.source !== 'chargeTimeout');
    const result = migrateInstance({
      source: v1,
      target: v2,
      state: run.state,
      instructions,
      ctx: testContext(),
    });
    assert.ok(result.ok);
    assert.ok(closed(result.effects).includes(timer.waitId));
    // chargeTimeout of v2 is not mapped from anything: it is a new boundary and is opened.
    assert.deepEqual(
      waitsOf(result.state).map((w) => w.elementId),
      ['charge', 'chargeCancelled', 'chargeTimeout'],
    );
  });

  test('given a multi-instance body, migrating to the same model keeps its instances and counters', async () => {
    const model = await loadModel('multi-instance.bpmn');
    const run = new Scenario(model).start({
      recipients: ['ann', 'bob', 'cy'],
      approvers: ['x', 'y', 'z'],
      packCount: 2,
    });
    assert.ok(
      Object.values(run.state.tokens).some((t) => t.multiInstance !== null),
      'the instance stands in a multi-instance body',
    );
    const result = migrateInstance({
      source: model,
      target: model,
      state: run.state,
      instructions: generateInstructions(model, model),
      ctx: testContext(),
    });
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.deepEqual(result.state.tokens, run.state.tokens);
    assert.deepEqual(result.state.waits, run.state.waits);
    assert.deepEqual(closed(result.effects), []);
  });
});
