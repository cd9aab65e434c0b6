import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { before, describe, test } from 'node:test';
import {
  defaultJavaScriptLimits,
  loadJavaScriptEngine,
  type JavaScriptEngine,
  type JavaScriptLimits,
} from '../../../src/workflow/scripts/javascript-engine.js';
import type { StepRun } from '../../../src/workflow/scripts/step-run.js';
import type { Variables } from '../../../src/workflow/scripts/types.js';

const limits: JavaScriptLimits = { ...defaultJavaScriptLimits, timeoutMs: 500 };
const execution = {
  processInstanceId: 'instance-1',
  processBusinessKey: 'order-42',
  processDefinitionId: 'definition-1',
  activityId: 'computeTotal',
  executionId: 'token-1',
};

void describe('JavaScript in QuickJS', () => {
  let engine: JavaScriptEngine;
  before(async () => {
    engine = await loadJavaScriptEngine();
  });
  const run = (
    source: string,
    variables: Variables = {},
    resultVariable: string | null = null,
    bounds: JavaScriptLimits = limits,
  ): Promise<StepRun> => engine.run({ source, variables, execution, resultVariable }, bounds);
  const ok = async (...args: Parameters<typeof run>) => {
    const result = await run(...args);
    assert.equal(result.status, 'ok', JSON.stringify(result));
    return result as Extract<StepRun, { status: 'ok' }>;
  };
  const error = async (...args: Parameters<typeof run>) => {
    const result = await run(...args);
    assert.equal(result.status, 'error', JSON.stringify(result));
    return (result as Extract<StepRun, { status: 'error' }>).error;
  };

  void test('execution.getVariable reads and execution.setVariable sets; only set variables are changes', async () => {
    const result = await ok(
      `const items = execution.getVariable('items');
       execution.setVariable('total', items.reduce((sum, item) => sum + item.price, 0));
       execution.setVariable('customer', execution.getVariable('customer').toUpperCase());`,
      { items: [{ price: 10 }, { price: 32 }], customer: 'ada', untouched: true },
    );
    assert.deepEqual(result.changes, { total: 42, customer: 'ADA' });
  });

  void test('hasVariable, getVariables, getVariableNames and a missing variable read as null', async () => {
    const result = await ok(
      `[execution.hasVariable('a'), execution.hasVariable('b'), execution.getVariable('b'),
        execution.getVariables(), execution.getVariableNames()]`,
      { a: 1 },
      'seen',
    );
    assert.deepEqual(result.output, [true, false, null, { a: 1 }, ['a']]);
  });

  void test('the value of the last expression goes to the result variable', async () => {
    const result = await ok('const vat = net * 0.2;\nnet + vat', { net: 100 }, 'gross');
    assert.deepEqual(result.changes, { gross: 120 });
    assert.equal(result.output, 120);
  });

  void test('without a result variable the last value is not stored, even one JSON cannot hold', async () => {
    const result = await ok("execution.setVariable('x', 1); (function () {})");
    assert.deepEqual(result.changes, { x: 1 });
  });

  void test('process variables are top-level names, read through to execution.setVariable', async () => {
    const result = await ok(
      "const before = amount; execution.setVariable('amount', 7); [before, amount, typeof missing]",
      { amount: 5 },
      'r',
    );
    assert.deepEqual(result.output, [5, 7, 'undefined']);
  });

  void test('assigning a top-level name changes the script copy only, as in Camunda; let and var may shadow it', async () => {
    assert.deepEqual(
      (await ok('amount = 9; [amount, execution.getVariable("amount")]', { amount: 5 }, 'r')).changes,
      {
        r: [9, 5],
      },
    );
    assert.deepEqual((await ok('let amount = 3; amount', { amount: 5 }, 'r')).changes, { r: 3 });
    assert.deepEqual((await ok('var amount = 4; amount', { amount: 5 }, 'r')).changes, { r: 4 });
  });

  void test('a variable named like a global or execution does not replace it', async () => {
    const result = await ok(
      '[typeof JSON.parse, typeof execution.getVariable]',
      { JSON: 1, execution: 2 },
      'r',
    );
    assert.deepEqual(result.output, ['function', 'function']);
  });

  void test('execution answers the instance, business key, definition and activity, as methods and properties', async () => {
    const result = await ok(
      `[execution.getProcessInstanceId(), execution.processInstanceId,
        execution.getProcessBusinessKey(), execution.processBusinessKey, execution.getBusinessKey(),
        execution.getCurrentActivityId(), execution.activityId, execution.currentActivityId,
        execution.getProcessDefinitionId(), execution.getId()]`,
      {},
      'r',
    );
    assert.deepEqual(result.output, [
      'instance-1',
      'instance-1',
      'order-42',
      'order-42',
      'order-42',
      'computeTotal',
      'computeTotal',
      'computeTotal',
      'definition-1',
      'token-1',
    ]);
  });

  void test("execution answers an execution listener's event name; a script task's is null", async () => {
    const listener = await engine.run(
      {
        source: '[execution.getEventName(), execution.eventName, execution.getCurrentActivityId()]',
        variables: {},
        execution: { ...execution, activityId: null, eventName: 'end' },
        resultVariable: 'r',
      },
      limits,
    );
    assert.ok(listener.status === 'ok', JSON.stringify(listener));
    assert.deepEqual(listener.output, ['end', 'end', null]);
    const task = await ok('[execution.getEventName(), execution.eventName]', {}, 'r');
    assert.deepEqual(task.output, [null, null]);
  });

  void test('values are JSON: dates become ISO text, undefined null; a name __proto__ stays a variable', async () => {
    const result = await ok(
      `execution.setVariable('when', new Date(Date.UTC(2025, 0, 2)));
       execution.setVariable('nothing', undefined);
       execution.setVariable('__proto__', { polluted: true });`,
    );
    assert.deepEqual(Object.keys(result.changes), ['when', 'nothing', '__proto__']);
    assert.equal(result.changes.when, '2025-01-02T00:00:00.000Z');
    assert.equal(result.changes.nothing, null);
    assert.deepEqual(Object.getOwnPropertyDescriptor(result.changes, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  void test('setVariable stores a copy: a later change to the object is not stored', async () => {
    const result = await ok("const o = { n: 1 }; execution.setVariable('o', o); o.n = 2;");
    assert.deepEqual(result.changes, { o: { n: 1 } });
  });

  void test('a value JSON cannot hold fails at the setVariable call, with its line', async () => {
    const failure = await error("const big = 1n;\nexecution.setVariable('b', big);");
    assert.match(failure.message, /TypeError: variable 'b' cannot be stored as JSON/);
    assert.equal(failure.line, 2);
  });

  void test('a thrown error is an error with its message, line and column', async () => {
    const failure = await error("const x = 1;\n\n  throw new Error('no credit for ' + x);");
    // QuickJS places an error where it is made: the column of the call to Error.
    assert.deepEqual(failure, { message: 'Error: no credit for 1', line: 3, column: 18 });
  });

  void test('a reference to an unknown name and a syntax error name their place', async () => {
    const reference = await error('const a = 1;\n  nope.field');
    assert.deepEqual(reference, { message: "ReferenceError: 'nope' is not defined", line: 2, column: 3 });
    const syntax = await error('let a = 1;\nlet b = a +;');
    assert.match(syntax.message, /^SyntaxError: /);
    assert.equal(syntax.line, 2);
  });

  void test('throwing something that is not an Error still fails with what was thrown', async () => {
    assert.equal((await error("throw 'declined'")).message, 'the script threw "declined"');
    assert.equal((await error('throw { code: 7 }')).message, 'the script threw {"code":7}');
  });

  void test('removeVariable is refused with a message saying what to do', async () => {
    assert.match(
      (await error("execution.removeVariable('a')", { a: 1 })).message,
      /set the variable to null/,
    );
  });

  void test('no Node or host API is reachable', async () => {
    const result = await ok(
      `[typeof require, typeof process, typeof module, typeof fetch, typeof globalThis.fetch, typeof Buffer,
        typeof setTimeout, typeof std, typeof os, typeof WebAssembly, typeof XMLHttpRequest]`,
      {},
      'r',
    );
    assert.ok(Array.isArray(result.output));
    assert.ok(
      result.output.every((kind) => kind === 'undefined'),
      JSON.stringify(result.output),
    );
    const imported = await run("import('fs')", {}, null);
    assert.ok(imported.status === 'ok', 'a dynamic import is only a rejected promise');
    const required = await error("require('child_process')");
    assert.match(required.message, /ReferenceError: 'require' is not defined/);
  });

  void test('an infinite loop is interrupted at the time limit', async () => {
    const started = performance.now();
    const failure = await error('let n = 0;\nwhile (true) { n++; }', {}, null, { ...limits, timeoutMs: 200 });
    const elapsed = performance.now() - started;
    assert.equal(failure.message, 'javascript script exceeded the time limit of 200 ms');
    assert.ok(elapsed < 1500, `took ${Math.round(elapsed)} ms`);
  });

  const bombs: [string, string][] = [
    ["let s = 'x';\nwhile (true) { s = s.repeat(2); }", 'a doubling string'],
    ['const a = [];\nwhile (true) a.push({ n: a.length });', 'many small objects'],
    ["const a = [];\nwhile (true) a.push('x'.repeat((1 << 20) + a.length));", 'many large strings'],
    ['const a = [];\nwhile (true) a.push(new Uint8Array(1 << 20));', 'many typed arrays'],
    ['new Array(1e8).fill(0)', 'one huge array'],
  ];
  for (const [source, what] of bombs) {
    void test(`a memory bomb (${what}) is stopped by the memory limit, quickly`, async () => {
      const started = performance.now();
      const failure = await error(source, {}, null, {
        ...limits,
        timeoutMs: 10_000,
        memoryLimitBytes: 8 * 1024 * 1024,
      });
      assert.equal(failure.message, 'javascript script exceeded the memory limit of 8 MiB');
      assert.ok(performance.now() - started < 3000, `took ${Math.round(performance.now() - started)} ms`);
      assert.deepEqual((await ok('1 + 1', {}, 'r', limits)).changes, { r: 2 }, 'the engine still works');
    });
  }

  void test('variables too large for the memory limit are refused before the script runs', async () => {
    const failure = await error('1', { big: 'x'.repeat(3 * 1024 * 1024) }, null, {
      ...limits,
      memoryLimitBytes: 8 * 1024 * 1024,
    });
    assert.match(failure.message, /over a quarter of the script memory limit/);
  });

  void test('deep recursion is stopped by the stack limit', async () => {
    const failure = await error('function down(n) { return down(n + 1) + 1; }\ndown(0)');
    assert.equal(failure.message, 'javascript script exceeded the stack limit (it recursed too deeply)');
  });

  void test('an output over the limit is refused, naming its size', async () => {
    const failure = await error("execution.setVariable('blob', 'x'.repeat(2000))", {}, null, {
      ...limits,
      maxOutputBytes: 1000,
    });
    assert.match(failure.message, /come to 2\d{3} bytes of JSON, over the limit of 1000/);
    const result = await error("'y'.repeat(5000)", {}, 'r', { ...limits, maxOutputBytes: 1000 });
    assert.match(result.message, /over the limit of 1000/);
  });

  void test('each script runs in a fresh interpreter: globals do not leak between runs', async () => {
    await ok('globalThis.leak = 1; var alsoLeak = 2;');
    const result = await ok('[typeof leak, typeof alsoLeak]', {}, 'r');
    assert.deepEqual(result.output, ['undefined', 'undefined']);
  });

  void test('promise callbacks run before the script ends', async () => {
    const result = await ok("Promise.resolve(2).then((n) => execution.setVariable('n', n)); 1");
    assert.deepEqual(result.changes, { n: 2 });
  });
});
