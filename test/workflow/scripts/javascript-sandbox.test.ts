import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { JavaScriptTask } from '../../../src/workflow/scripts/javascript-engine.js';
import { createScriptSandbox, type ScriptSandbox } from '../../../src/workflow/scripts/sandbox.js';

const timeoutMs = 400;
const task = (source: string, variables = {}, resultVariable: string | null = null): JavaScriptTask => ({
  source,
  variables,
  resultVariable,
  execution: {
    processInstanceId: 'i',
    processBusinessKey: null,
    processDefinitionId: null,
    activityId: 'a',
    executionId: 't',
  },
});

void describe('JavaScript in the script sandbox', () => {
  let sandbox: ScriptSandbox;
  before(async () => {
    sandbox = createScriptSandbox({
      poolSize: 2,
      stepTimeoutMs: timeoutMs,
      limits: { javascript: { memoryLimitBytes: 16 * 1024 * 1024 } },
    });
    await sandbox.ready();
  });
  after(() => sandbox.close());

  void test('runs a script in a worker: variables in, changes and result out', async () => {
    const outcome = await sandbox.runJavaScript(
      task("execution.setVariable('doubled', n * 2); n + 1", { n: 20 }, 'next'),
    );
    assert.equal(outcome.status, 'ok', JSON.stringify(outcome));
    assert.deepEqual(outcome.status === 'ok' && outcome.changes, { doubled: 40, next: 21 });
    assert.equal(typeof outcome.durationMs, 'number');
  });

  void test('an infinite loop is interrupted by the interpreter at the step timeout; the worker lives on', async () => {
    const started = performance.now();
    const outcome = await sandbox.runJavaScript(task('for (;;) {}'));
    const elapsed = performance.now() - started;
    assert.equal(outcome.status, 'error');
    assert.equal(
      outcome.status === 'error' && outcome.error.message,
      `javascript script exceeded the time limit of ${timeoutMs} ms`,
    );
    assert.ok(
      elapsed < timeoutMs + 900,
      `took ${Math.round(elapsed)} ms: the interrupt handler, not the worker's end`,
    );
    const next = await sandbox.runJavaScript(task('1 + 1', {}, 'r'));
    assert.deepEqual(next.status === 'ok' && next.changes, { r: 2 });
  });

  void test('a loop of costly native calls, which the interrupt handler seldom sees, ends by the worker being replaced', async () => {
    const started = performance.now();
    const outcome = await sandbox.runJavaScript(task("for (;;) 'x'.repeat(1 << 22).indexOf('y');"));
    const elapsed = performance.now() - started;
    assert.equal(
      outcome.status === 'error' && outcome.error.message,
      `javascript script exceeded the time limit of ${timeoutMs} ms`,
    );
    assert.ok(elapsed < timeoutMs + 2500, `took ${Math.round(elapsed)} ms`);
    const next = await sandbox.runJavaScript(task('2', {}, 'r'));
    assert.deepEqual(next.status === 'ok' && next.changes, { r: 2 });
  });

  void test('a memory bomb ends at the configured memory limit', async () => {
    const outcome = await sandbox.runJavaScript(
      task("const a = []; for (;;) a.push('x'.repeat((1 << 20) + a.length));"),
    );
    assert.equal(
      outcome.status === 'error' && outcome.error.message,
      'javascript script exceeded the memory limit of 16 MiB',
    );
  });

  void test('a spinning script blocks neither a jq step nor another script on the other worker', async () => {
    // A sandbox of its own, both workers started, and a time limit far above the quick answers.
    const own = createScriptSandbox({ poolSize: 2, stepTimeoutMs: 3000 });
    try {
      await own.ready();
      const spinning = own.runJavaScript(task('while (true) {}'));
      const started = performance.now();
      const [quick, step] = await Promise.all([
        own.runJavaScript(task('"ok"', {}, 'r')),
        own.execute({ name: 'jq', type: 'jq', expression: '{b: (.a + 1)}' }, { a: 1 }),
      ]);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 2000, `answered after ${Math.round(elapsed)} ms, before the spinning script ended`);
      assert.equal(quick.status, 'ok');
      assert.equal(step.status, 'ok');
      assert.equal((await spinning).status, 'error');
    } finally {
      await own.close();
    }
  });
});
