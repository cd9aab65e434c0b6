import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EngineEvent, ModificationInstruction } from '../../../../src/workflow/engine/runtime/index.js';
import { loadModel, Scenario } from './helpers.js';

function modify(instructions: ModificationInstruction[], extra: Partial<EngineEvent> = {}): EngineEvent {
  return { type: 'modify', instructions, actor: 'user-1', ...extra } as EngineEvent;
}

void describe('process instance modification (modify.bpmn)', async () => {
  const model = await loadModel('modify.bpmn');

  void test('start before an activity adds a token there; the old one stays', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'd' }]));
    assert.deepEqual(
      run.openWaits().filter((id) => id !== 'espStart'),
      ['a', 'd'],
    );
    const entry = run.history().find((e) => e.kind === 'modified');
    assert.ok(entry !== undefined);
    assert.equal(entry.data.actor, 'user-1');
    assert.deepEqual(entry.data.instructions, [{ type: 'startBeforeActivity', activityId: 'd' }]);
  });

  void test('start after an activity takes its one outgoing flow', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startAfterActivity', activityId: 'a' }]));
    assert.ok(run.historyOf('flowTaken').includes('f2'));
    assert.deepEqual(run.waitsAt('b').length, 1);
    assert.equal(
      run.historyOf('elementActivated').filter((id) => id === 'a').length,
      1,
      'a is not re-entered',
    );
  });

  void test('cancel then start moves the token, whatever the order of the instructions', () => {
    for (const order of [0, 1]) {
      const run = new Scenario(model).start();
      const cancel: ModificationInstruction = { type: 'cancelActivity', activityId: 'a' };
      const start: ModificationInstruction = { type: 'startBeforeActivity', activityId: 'd' };
      run.send(modify(order === 0 ? [cancel, start] : [start, cancel]));
      assert.equal(run.state.status, 'running');
      assert.deepEqual(run.tokens(), ['d']);
      assert.ok(run.historyOf('elementTerminated').includes('a'));
    }
  });

  void test('cancelling the last token ends the instance as cancelled', () => {
    const run = new Scenario(model).start();
    const token = Object.values(run.state.tokens)[0];
    assert.ok(token !== undefined);
    run.send(modify([{ type: 'cancelToken', tokenId: token.id }]));
    assert.equal(run.state.status, 'cancelled');
    assert.deepEqual(run.openWaits(), [], 'the event sub-process start closed with the instance');
    assert.deepEqual(run.effectsOf('instanceEnded'), [{ type: 'instanceEnded', status: 'cancelled' }]);
  });

  void test('starting inside a sub-process that does not run creates its scope with its boundary waits', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'c' }]));
    assert.deepEqual(run.tokens(), ['a', 'c', 'sp']);
    assert.equal(run.waitsAt('late').length, 1, 'the timer boundary of sp is open');
    const c = Object.values(run.state.tokens).find((t) => t.elementId === 'c');
    const sp = Object.values(run.state.tokens).find((t) => t.elementId === 'sp');
    assert.equal(c?.scopeId, sp?.localScopeId);
    const cWait = run.wait('c');
    assert.ok(cWait.kind === 'userTask');
    assert.equal(cWait.variables.cInput, 'mapped');
    // When c completes, sp completes and the token goes on to d.
    run.complete('c');
    assert.deepEqual(run.tokens(), ['a', 'd']);
  });

  void test('skipIoMappings starts the element without its input mappings', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'c' }], { skipIoMappings: true }));
    const wait = run.wait('c');
    assert.ok(wait.kind === 'userTask');
    assert.equal(wait.variables.cInput, undefined);
  });

  void test('a sub-process running twice makes a start inside it ambiguous unless ancestorScopeId names one', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'sp' }]));
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'sp' }]));
    const refused = run.try(modify([{ type: 'startBeforeActivity', activityId: 'c' }]));
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, 'invalidModification');
    assert.match(refused.error.problems?.[0] ?? '', /'sp' runs 2 times.*ancestorScopeId/);
    const scope = Object.values(run.state.tokens).find((t) => t.elementId === 'sp')?.localScopeId;
    assert.ok(scope);
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'c', ancestorScopeId: scope }]));
    const inScope = Object.values(run.state.tokens)
      .filter((t) => t.scopeId === scope)
      .map((t) => t.elementId);
    assert.deepEqual(inScope.sort(), ['c', 'c']);
  });

  void test('an ancestorScopeId that is unknown or does not enclose the element is refused', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'c' }]));
    const spScope = Object.values(run.state.tokens).find((t) => t.elementId === 'sp')?.localScopeId;
    assert.ok(spScope);
    const refused = run.try(
      modify([
        { type: 'startBeforeActivity', activityId: 'c', ancestorScopeId: 'nope' },
        { type: 'startBeforeActivity', activityId: 'd', ancestorScopeId: spScope },
      ]),
    );
    assert.ok(!refused.ok);
    assert.equal(refused.error.problems?.length, 2);
    assert.match(refused.error.problems?.[0] ?? '', /instruction 0: the instance has no scope 'nope'/);
    assert.match(refused.error.problems?.[1] ?? '', /instruction 1: .*does not enclose 'd'/);
  });

  void test('cancelling everything inside a sub-process cancels the sub-process too', () => {
    const run = new Scenario(model).start();
    run.send(
      modify([
        { type: 'cancelActivity', activityId: 'a' },
        { type: 'startBeforeActivity', activityId: 'c' },
      ]),
    );
    run.send(
      modify([
        { type: 'cancelActivity', activityId: 'c' },
        { type: 'startBeforeActivity', activityId: 'd' },
      ]),
    );
    assert.deepEqual(run.tokens(), ['d']);
    assert.ok(run.historyOf('elementTerminated').includes('sp'));
    assert.equal(run.waitsAt('late').length, 0, "sp's boundary timer closed with it");
  });

  void test('emptying a sub-process and the process in one call ends the instance once', () => {
    const run = new Scenario(model).start();
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'c' }]));
    run.send(
      modify([
        { type: 'cancelActivity', activityId: 'c' },
        { type: 'cancelActivity', activityId: 'a' },
      ]),
    );
    assert.equal(run.state.status, 'cancelled');
    assert.equal(run.effectsOf('instanceEnded').length, 1);
    assert.equal(run.historyOf('instanceEnded').length, 1);
  });

  void test('variables are set on the root scope in the same call', () => {
    const run = new Scenario(model).start({ kept: 1 });
    run.send(modify([{ type: 'startBeforeActivity', activityId: 'd' }], { variables: { fixed: true } }));
    assert.deepEqual(run.variables(), { kept: 1, fixed: true });
  });

  void test('an invalid plan is refused with every problem and changes nothing', () => {
    const run = new Scenario(model).start();
    const before = structuredClone(run.state);
    const refused = run.try(
      modify([
        { type: 'startBeforeActivity', activityId: 'nope' },
        { type: 'startBeforeActivity', activityId: 'late' },
        { type: 'startBeforeActivity', activityId: 'e' },
        { type: 'startAfterActivity', activityId: 'end' },
        { type: 'cancelActivity', activityId: 'd' },
        { type: 'cancelToken', tokenId: 'no-such-token' },
      ]),
    );
    assert.ok(!refused.ok);
    assert.equal(refused.error.problems?.length, 6);
    assert.match(refused.error.problems?.[0] ?? '', /instruction 0: the model has no element 'nope'/);
    assert.match(refused.error.problems?.[1] ?? '', /boundary event/);
    assert.match(refused.error.problems?.[2] ?? '', /event sub-process/);
    assert.match(refused.error.problems?.[3] ?? '', /0 outgoing flows/);
    assert.match(refused.error.problems?.[4] ?? '', /no token is at 'd'/);
    assert.match(refused.error.problems?.[5] ?? '', /no token 'no-such-token'/);
    assert.deepEqual(run.state, before);
  });

  void test('an empty list of instructions is refused', () => {
    const run = new Scenario(model).start();
    const refused = run.try(modify([]));
    assert.ok(!refused.ok);
    assert.deepEqual(refused.error.problems, ['no instructions given']);
  });

  void test('an ended instance is refused', () => {
    const run = new Scenario(model).start().send({ type: 'cancel' });
    const refused = run.try(modify([{ type: 'startBeforeActivity', activityId: 'a' }]));
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, 'instanceEnded');
  });
});
