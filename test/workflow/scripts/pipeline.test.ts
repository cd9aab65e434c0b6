import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  PipelineValidationError,
  runPipeline,
  validatePipeline,
} from '../../../src/workflow/scripts/pipeline.js';
import type { StepExecutor } from '../../../src/workflow/scripts/step-executor.js';
import type { ScriptStepInput } from '../../../src/workflow/scripts/types.js';
import { fromWireSteps, toWirePipelineResult } from '../../../src/workflow/scripts/wire.js';

const jq = (name: string, expression: string): ScriptStepInput => ({ name, type: 'jq', expression });
const feel = (name: string, expression: string, resultVariable?: string): ScriptStepInput => ({
  name,
  type: 'feel',
  expression,
  resultVariable: resultVariable ?? null,
});

void describe('validatePipeline', () => {
  void test('lists every bad step, with its index and name, U020 for the type and U021 for the expression', () => {
    const problems = validatePipeline([
      jq('fine', '.'),
      { name: 'py', type: 'python', expression: 'x = 1' },
      feel('blank', '   \n\t'),
      { name: 'both', type: 'lua', expression: '' },
    ]);
    assert.deepEqual(
      problems.map((p) => [p.code, p.index, p.name]),
      [
        ['U020', 1, 'py'],
        ['U021', 2, 'blank'],
        ['U020', 3, 'both'],
        ['U021', 3, 'both'],
      ],
    );
    assert.match(problems[0]?.message ?? '', /python.*jq, feel, rhai/);
  });

  void test('accepts a valid pipeline', () => {
    assert.deepEqual(
      validatePipeline([jq('a', '.'), feel('b', '1', 'x'), { name: 'c', type: 'rhai', expression: '1' }]),
      [],
    );
  });

  void test('runPipeline runs nothing when any step is invalid', async () => {
    let calls = 0;
    const executor: StepExecutor = {
      execute() {
        calls++;
        return Promise.resolve({ status: 'ok', output: {}, changes: {}, durationMs: 0 });
      },
    };
    await assert.rejects(
      runPipeline([jq('first', '{a: 1}'), feel('bad', '')], {}, { executor }),
      (e: unknown) =>
        e instanceof PipelineValidationError && e.problems.length === 1 && e.problems[0]?.code === 'U021',
    );
    assert.equal(calls, 0);
  });
});

void describe('runPipeline', () => {
  void test('each step sees the variables the previous step left', async () => {
    const result = await runPipeline(
      [jq('double', '{n: (.n * 2)}'), feel('add', '{m: n + 1}'), jq('sum', '{total: (.n + .m), n: .n}')],
      { n: 5, keep: 'me' },
    );
    assert.equal(result.ok, true);
    assert.deepEqual(
      result.steps.map((s) => [s.index, s.name, s.type, s.status]),
      [
        [0, 'double', 'jq', 'ok'],
        [1, 'add', 'feel', 'ok'],
        [2, 'sum', 'jq', 'ok'],
      ],
    );
    assert.deepEqual(
      result.steps.map((s) => s.output),
      [{ n: 10 }, { m: 11 }, { total: 21, n: 10 }],
    );
    assert.deepEqual(result.variablesAfter, { n: 10, keep: 'me', m: 11, total: 21 });
    for (const step of result.steps) assert.ok(step.durationMs >= 0);
  });

  void test('does not modify the variables it was given', async () => {
    const variables = { n: 1 };
    await runPipeline([jq('set', '{n: 2}')], variables);
    assert.deepEqual(variables, { n: 1 });
  });

  void test('a jq step must produce exactly one object', async () => {
    for (const [expression, why] of [
      ['.n', /produced number/],
      ['[.n]', /produced array/],
      ['empty', /produced 0 outputs/],
      ['{a: 1}, {b: 2}', /produced 2 outputs/],
    ] as const) {
      const result = await runPipeline([jq('bad', expression), jq('never', '{x: 1}')], { n: 1 });
      assert.equal(result.ok, false, expression);
      assert.equal(result.steps.length, 1, 'the pipeline stops at the failing step');
      assert.equal(result.steps[0]?.status, 'error');
      assert.match(result.steps[0]?.error?.message ?? '', why);
      assert.deepEqual(result.variablesAfter, { n: 1 });
    }
  });

  void test('a jq compile error carries jq’s line and column', async () => {
    const result = await runPipeline([jq('broken', '{a: 1} |\n  .b +')], {});
    const error = result.steps[0]?.error;
    assert.equal(result.steps[0]?.status, 'error');
    assert.match(error?.message ?? '', /syntax error/);
    assert.deepEqual([error?.line, error?.column], [2, 6]);
  });

  void test('a jq runtime error is a step error with jq’s message', async () => {
    const result = await runPipeline([jq('boom', 'error("no such order")')], {});
    assert.deepEqual(result.steps[0]?.error, { message: 'no such order', line: null, column: null });
  });

  void test('variables stop at the last successful step', async () => {
    const result = await runPipeline([jq('a', '{a: 1}'), jq('b', '.a | error'), jq('c', '{c: 1}')], {});
    assert.deepEqual(
      result.steps.map((s) => s.status),
      ['ok', 'error'],
    );
    assert.deepEqual(result.variablesAfter, { a: 1 });
  });

  void test('a FEEL context result is merged key by key', async () => {
    const result = await runPipeline([feel('ctx', '{total: price * qty, label: "order " + id}')], {
      price: 2.5,
      qty: 4,
      id: 'A7',
      other: true,
    });
    assert.deepEqual(result.steps[0]?.output, { total: 10, label: 'order A7' });
    assert.deepEqual(result.variablesAfter, {
      price: 2.5,
      qty: 4,
      id: 'A7',
      other: true,
      total: 10,
      label: 'order A7',
    });
  });

  void test('a FEEL scalar needs a result variable', async () => {
    const without = await runPipeline([feel('scalar', 'amount > 100')], { amount: 150 });
    assert.equal(without.steps[0]?.status, 'error');
    assert.match(without.steps[0]?.error?.message ?? '', /boolean.*result_variable/);
    const withVariable = await runPipeline([feel('scalar', 'amount > 100', 'large')], { amount: 150 });
    assert.equal(withVariable.steps[0]?.output, true);
    assert.deepEqual(withVariable.variablesAfter, { amount: 150, large: true });
  });

  void test('a FEEL result variable takes a context whole', async () => {
    const result = await runPipeline([feel('ctx', '{a: 1}', 'box')], {});
    assert.deepEqual(result.variablesAfter, { box: { a: 1 } });
  });

  void test('FEEL dates become ISO text', async () => {
    const result = await runPipeline([feel('due', 'date("2024-02-28") + duration("P2D")', 'due')], {});
    assert.deepEqual(result.variablesAfter, { due: '2024-03-01' });
  });

  void test('a FEEL syntax error carries a line and column', async () => {
    const result = await runPipeline([feel('broken', '{a: 1,\n b: x +}', 'r')], { x: 1 });
    const error = result.steps[0]?.error;
    assert.match(error?.message ?? '', /FEEL syntax error/);
    assert.equal(error?.line, 2);
    assert.equal(typeof error?.column, 'number');
  });

  void test('run_until_step runs up to and including the named step', async () => {
    const steps = [jq('one', '{a: 1}'), jq('two', '{b: 2}'), jq('three', '{c: 3}')];
    const result = await runPipeline(steps, {}, { runUntilStep: 'two' });
    assert.deepEqual(
      result.steps.map((s) => s.name),
      ['one', 'two'],
    );
    assert.deepEqual(result.variablesAfter, { a: 1, b: 2 });
    const all = await runPipeline(steps, {}, { runUntilStep: null });
    assert.equal(all.steps.length, 3);
  });

  void test('onStep sees each result with the variables after it', async () => {
    const seen: unknown[] = [];
    await runPipeline(
      [jq('one', '{a: 1}'), jq('two', '{b: 2}')],
      {},
      {
        onStep: (result, variables) => {
          seen.push([result.index, result.name, variables]);
        },
      },
    );
    assert.deepEqual(seen, [
      [0, 'one', { a: 1 }],
      [1, 'two', { a: 1, b: 2 }],
    ]);
  });
});

void describe('prototype-pollution keys', () => {
  void test('__proto__ and constructor stay plain variables', async () => {
    const variables = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "n": 1}',
    ) as Record<string, never>;
    const result = await runPipeline(
      [
        jq('jq', '{"__proto__": {"polluted": "jq"}, constructor: 2, seen: .["__proto__"].polluted}'),
        feel('feel', '{n: n + 1}'),
        feel('feel-scalar', 'n * 2', '__proto__'),
      ],
      variables,
    );
    assert.equal(result.ok, true, JSON.stringify(result.steps));
    const after = result.variablesAfter;
    assert.equal(Object.getPrototypeOf(after), Object.prototype);
    assert.deepEqual(Object.keys(after).sort(), ['__proto__', 'constructor', 'n', 'seen']);
    assert.equal(Object.getOwnPropertyDescriptor(after, '__proto__')?.value, 4);
    assert.equal(after.constructor, 2);
    assert.equal(after.seen, true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  });
});

void describe('wire shape', () => {
  void test('maps steps in and results out in snake_case', async () => {
    const steps = fromWireSteps([
      { name: 'a', type: 'feel', expression: '1 + 1', result_variable: 'two' },
      { name: 'b', type: 'jq', expression: '.two | error' },
    ]);
    const wire = toWirePipelineResult(await runPipeline(steps, {}));
    assert.deepEqual(Object.keys(wire), ['steps', 'variables_after']);
    assert.deepEqual(wire.variables_after, { two: 2 });
    assert.deepEqual(
      wire.steps.map((s) => [s.name, s.type, s.status, s.output, typeof s.duration_ms]),
      [
        ['a', 'feel', 'ok', 2, 'number'],
        ['b', 'jq', 'error', null, 'number'],
      ],
    );
    assert.equal('error' in (wire.steps[0] ?? {}), false);
    assert.deepEqual(wire.steps[1]?.error, { message: '2 (not a string)', line: null, column: null });
  });
});
