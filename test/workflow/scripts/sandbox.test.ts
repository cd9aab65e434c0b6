import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { createScriptSandbox, type ScriptSandbox } from '../../../src/workflow/scripts/sandbox.js';
import type { ScriptStepInput } from '../../../src/workflow/scripts/types.js';

const jq = (name: string, expression: string): ScriptStepInput => ({ name, type: 'jq', expression });
const timeoutMs = 750;

void describe('script sandbox', () => {
  let sandbox: ScriptSandbox;
  before(async () => {
    sandbox = createScriptSandbox({ poolSize: 2, stepTimeoutMs: timeoutMs });
    await sandbox.ready();
  });
  after(() => sandbox.close());

  void test('runs a pipeline in its workers like in-process', async () => {
    const result = await sandbox.run(
      [
        jq('double', '{n: (.n * 2)}'),
        { name: 'feel', type: 'feel', expression: 'n + 1', resultVariable: 'm' },
      ],
      { n: 4 },
    );
    assert.equal(result.ok, true, JSON.stringify(result.steps));
    assert.deepEqual(result.variablesAfter, { n: 8, m: 9 });
  });

  for (const program of ['repeat(.)', 'range(1e9) | {n: .}', '[range(1e9)] | {n: length}', 'def f: f; f']) {
    void test(`jq ${program} ends with a step error within a few seconds`, async () => {
      const started = performance.now();
      const result = await sandbox.run([jq('hostile', program), jq('never', '{x: 1}')], { a: 1 });
      const elapsed = performance.now() - started;
      assert.equal(result.ok, false);
      assert.equal(result.steps.length, 1);
      assert.equal(result.steps[0]?.status, 'error');
      assert.match(result.steps[0]?.error?.message ?? '', /time limit|memory|aborted/);
      console.log(`jq ${program}: ${result.steps[0]?.error?.message} after ${Math.round(elapsed)} ms`);
      assert.ok(elapsed < timeoutMs + 3000, `took ${Math.round(elapsed)} ms`);
      assert.deepEqual(result.variablesAfter, { a: 1 });
      const afterwards = await sandbox.run([jq('ok', '{b: (.a + 1)}')], { a: 1 });
      assert.deepEqual(afterwards.variablesAfter, { a: 1, b: 2 }, 'the sandbox still works');
    });
  }

  void test('a FEEL loop over ten billion pairs (each range within the list limit) ends with a time-limit error', async () => {
    const result = await sandbox.run(
      [
        {
          name: 'spin',
          type: 'feel',
          expression: 'for i in 1..100000, j in 1..100000 return i',
          resultVariable: 'x',
        },
      ],
      {},
    );
    assert.equal(result.steps[0]?.error?.message, `feel step exceeded the time limit of ${timeoutMs} ms`);
  });

  void test('a timed-out step names the limit', async () => {
    const result = await sandbox.run([jq('spin', 'last(range(1e12)) | {n: .}')], {});
    assert.equal(result.steps[0]?.error?.message, `jq step exceeded the time limit of ${timeoutMs} ms`);
    // Timers may fire a few milliseconds before a performance.now() difference says they should.
    const duration = result.steps[0]?.durationMs ?? 0;
    assert.ok(duration >= timeoutMs - 20, `the step ran ${duration} ms of its ${timeoutMs} ms`);
  });

  void test('a hostile step blocks neither the event loop nor a step on another worker', async () => {
    await sandbox.ready(); // the worker replaced after the last timeout may still be starting
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    let hostileEnded = false;
    const hostile = sandbox
      .run([jq('spin', 'last(range(1e12)) | {n: .}')], {})
      .finally(() => (hostileEnded = true));
    const quick = await sandbox.run([jq('quick', '{ok: true}')], {});
    // The order, not a duration: a busy machine may slow the quick step, but it must not wait for
    // the hostile one to reach its time limit.
    const quickFinishedFirst = !hostileEnded;
    await hostile;
    clearInterval(ticker);
    assert.deepEqual(quick.variablesAfter, { ok: true });
    assert.ok(quickFinishedFirst, 'the quick step waited for the hostile one');
    assert.ok(ticks >= timeoutMs / 10 / 3, `event loop ticked ${ticks} times`);
  });

  void test('steps queue when every worker is busy', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sandbox.run([jq(`s${i}`, `{i: ${i}}`)], {})),
    );
    assert.deepEqual(
      results.map((r) => r.variablesAfter.i),
      Array.from({ length: 10 }, (_, i) => i),
    );
  });
});

void describe('script sandbox lifecycle', () => {
  void test('a step over the memory limit fails and its worker is replaced', async () => {
    const sandbox = createScriptSandbox({ poolSize: 1, stepTimeoutMs: 20_000, maxHeapMb: 48 });
    try {
      const big = await sandbox.run(
        [
          {
            name: 'big',
            type: 'feel',
            expression: 'for i in 1..5000, j in 1..5000 return [i, "x"]',
            resultVariable: 'x',
          },
        ],
        {},
      );
      assert.equal(big.steps[0]?.error?.message, 'script exceeded the sandbox memory limit');
      const small = await sandbox.run(
        [{ name: 'ok', type: 'feel', expression: '1 + 1', resultVariable: 'x' }],
        {},
      );
      assert.deepEqual(small.variablesAfter, { x: 2 });
    } finally {
      await sandbox.close();
    }
  });

  void test('close ends steps still running with an error and refuses new ones', async () => {
    const sandbox = createScriptSandbox({ poolSize: 1, stepTimeoutMs: 10_000 });
    await sandbox.ready();
    const running = sandbox.run([jq('spin', 'last(range(1e12)) | {n: .}')], {});
    const queued = sandbox.run([jq('queued', '{a: 1}')], {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sandbox.close();
    for (const result of await Promise.all([running, queued])) {
      assert.equal(result.steps[0]?.error?.message, 'script sandbox is closed');
    }
    const later = await sandbox.run([jq('later', '{a: 1}')], {});
    assert.equal(later.steps[0]?.error?.message, 'script sandbox is closed');
  });
});
