import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { runPipeline } from '../../../src/workflow/scripts/pipeline.js';
import { createScriptSandbox } from '../../../src/workflow/scripts/sandbox.js';
import { createInProcessExecutor } from '../../../src/workflow/scripts/step-executor.js';
import type { ScriptStepInput, Variables } from '../../../src/workflow/scripts/types.js';

const rhai = (expression: string, resultVariable?: string): ScriptStepInput => ({
  name: 'rhai',
  type: 'rhai',
  expression,
  resultVariable: resultVariable ?? null,
});

void describe('Rhai steps', () => {
  void test('merge back only the variables the script added or changed', async () => {
    const result = await runPipeline(
      [rhai('a += 1;\nlet c = "new";\nb.x = 1;\nlist.push(3);\nlist.pop();\na * 10')],
      { a: 1, b: { x: 1 }, list: [1, 2], 'not-an-identifier': 5 },
    );
    assert.equal(result.ok, true, JSON.stringify(result.steps));
    assert.equal(result.steps[0]?.output, 20);
    assert.deepEqual(result.variablesAfter, {
      a: 2,
      b: { x: 1 },
      list: [1, 2],
      'not-an-identifier': 5,
      c: 'new',
    });
  });

  void test('sees the variables earlier steps left, and a result variable takes the final value', async () => {
    const result = await runPipeline(
      [
        { name: 'jq', type: 'jq', expression: '{items: [1, 2, 3]}' },
        rhai('let sum = 0;\nfor i in items { sum += i; }\nsum', 'total'),
      ],
      {},
    );
    assert.deepEqual(result.variablesAfter, { items: [1, 2, 3], sum: 6, total: 6 });
  });

  void test('an endless loop ends with an operations error', async () => {
    const result = await runPipeline([rhai('let x = 0;\nloop { x += 1; }')], { keep: true });
    assert.equal(result.steps[0]?.status, 'error');
    assert.match(result.steps[0]?.error?.message ?? '', /operations/i);
    assert.deepEqual(result.variablesAfter, { keep: true });
  });

  void test('a syntax error carries its line and column', async () => {
    const result = await runPipeline([rhai('let a = 1;\nlet b = ;')], {});
    const error = result.steps[0]?.error;
    assert.equal(result.steps[0]?.status, 'error');
    assert.equal(error?.line, 2);
    assert.equal(typeof error?.column, 'number');
  });

  void test('eval stays disabled even when the configured list leaves it out', async () => {
    const executor = createInProcessExecutor({ rhai: { disabledSymbols: [] } });
    const evalResult = await runPipeline([rhai('eval("1 + 1")')], {}, { executor });
    assert.equal(evalResult.steps[0]?.status, 'error');
    const print = await runPipeline([rhai('print("hi"); 1')], {}, { executor });
    assert.equal(print.steps[0]?.status, 'ok', 'print is allowed when not in the list');
    const defaults = await runPipeline([rhai('print("hi"); 1')], {});
    assert.equal(defaults.steps[0]?.status, 'error', 'print is disabled by default');
  });

  void test('the operations limit comes from the limits', async () => {
    const script = 'let n = 0;\nfor i in 0..500 { n += i; }\nn';
    const tight = await runPipeline([rhai(script, 'n')], {}, { limits: { rhai: { maxOperations: 100 } } });
    assert.equal(tight.steps[0]?.status, 'error');
    const loose = await runPipeline(
      [rhai(script, 'n')],
      {},
      { limits: { rhai: { maxOperations: 100_000 } } },
    );
    assert.deepEqual(loose.variablesAfter, { n: 124750 });
  });

  void test('__proto__ and constructor variables stay plain data', async () => {
    const variables = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "n": 1}') as Variables;
    const result = await runPipeline([rhai('n += 1; let fresh = 2; n')], variables);
    assert.equal(result.ok, true, JSON.stringify(result.steps));
    const afterRun = result.variablesAfter;
    assert.equal(Object.getPrototypeOf(afterRun), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(afterRun, '__proto__')?.value, { polluted: true });
    assert.equal(afterRun.n, 2);
    assert.equal(afterRun.fresh, 2);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  });
});

void describe('Rhai in the sandbox', () => {
  const sandbox = createScriptSandbox({ poolSize: 1, stepTimeoutMs: 2000 });
  after(() => sandbox.close());

  void test('an endless loop ends with an operations error, and the worker keeps serving', async () => {
    const hostile = await sandbox.run([rhai('loop {}')], {});
    assert.match(hostile.steps[0]?.error?.message ?? '', /operations/i);
    const fine = await sandbox.run([rhai('40 + 2', 'answer')], {});
    assert.deepEqual(fine.variablesAfter, { answer: 42 });
  });

  void test('deep recursion ends with an error', async () => {
    const result = await sandbox.run([rhai('fn f(n) { f(n + 1) }\nf(0)')], {});
    assert.equal(result.steps[0]?.status, 'error');
  });
});
