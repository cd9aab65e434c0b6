import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadJqEngine, type JqEngine, type JqRunResult } from '../../../src/workflow/scripts/jq-engine.js';
import { residentEligible } from '../../../src/workflow/scripts/jq-resident.js';
import { createScriptSandbox } from '../../../src/workflow/scripts/sandbox.js';
import type { JsonValue, ScriptStepInput } from '../../../src/workflow/scripts/types.js';

// Programs of every kind of outcome: one output, several, none, runtime errors after outputs, errors
// with non-string values, compile errors, deep recursion, regexes, number literals, and programs a
// resident jq must not take (they read the input stream, halt or write to stderr).
const programs = [
  '.',
  '{a: (.x + 1)}',
  '.[]?',
  'empty',
  '1, error("boom"), 2',
  'error({code: .x})',
  'error(null)',
  'try error("x") catch {caught: .}',
  '[paths]',
  'tostream',
  '[.. | numbers] | add',
  'to_entries | map(.key) | {keys: .}',
  '.x | tostring | test("^[0-9]+$")',
  '[.x | strings | sub("(?<a>.)"; "<\\(.a)>")]',
  '$__loc__',
  '{n: 100000000000000000001, m: 1.000000000000000000001}',
  '[limit(3; repeat(1))]',
  'def f: if . > 0 then . - 1 | f else . end; (.x | numbers | f)',
  'reduce range(0; 50) as $i ([]; . + [$i * $i]) | {squares: .}',
  '.x | @base64d',
  '{ broken',
  'undefined_function(1)',
  '.x as [$a, $b] | {a: $a, b: $b}',
  'getpath(["x", "y"])',
  'ltrimstr("a") | {v: .}',
  '[range(100000)] | length',
  'input',
  '[inputs]',
  'input_line_number',
  'debug | {d: .}',
  'stderr | empty',
  'halt_error',
  'if .x == 3 then halt else . end',
];

const inputs: JsonValue[] = [
  null,
  1,
  'text',
  [1, [2, 3], { a: 4 }],
  { x: 1 },
  { x: 'abc' },
  { x: [1, 2] },
  { x: 3, y: { z: [true, false, null] } },
  { x: { y: 'deep' }, s: 'ünï\u2028cödé\ud83d\ude00', n: 1e300 },
  { x: 'aGVsbG8=' },
];

// A small deterministic generator, so a failure can be replayed.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const key = (program: string, input: number) => `${program}\u0000${input}`;
const pairs = programs.flatMap((program) => inputs.map((_, input) => ({ program, input })));

const engines: JqEngine[] = [];
after(() => engines.forEach((engine) => engine.close()));

async function engine(options: Parameters<typeof loadJqEngine>[0]): Promise<JqEngine> {
  const loaded = await loadJqEngine(options);
  engines.push(loaded);
  return loaded;
}

// What a fresh jq instance gives for every (program, input): one new instance per pair.
async function freshResults(): Promise<Map<string, JqRunResult>> {
  const expected = new Map<string, JqRunResult>();
  for (const { program, input } of pairs) {
    const fresh = await loadJqEngine({ residentPrograms: 0 });
    expected.set(key(program, input), await fresh.run(program, inputs[input] ?? null));
  }
  return expected;
}

async function stress(jq: JqEngine, expected: Map<string, JqRunResult>, calls: number, seed: number) {
  const next = random(seed);
  for (let i = 0; i < calls; i++) {
    const { program, input } = pairs[Math.floor(next() * pairs.length)] ?? { program: '.', input: 0 };
    const got = await jq.run(program, inputs[input] ?? null);
    assert.deepEqual(got, expected.get(key(program, input)), `call ${i}: ${program} over input ${input}`);
  }
}

void describe('jq engine: re-entered and resident jq give what a fresh instance gives', async () => {
  const expected = await freshResults();

  void test('programs that read the input stream, halt or write to stderr never get a resident jq', () => {
    assert.deepEqual(
      programs.filter((program) => !residentEligible(program)),
      [
        'input',
        '[inputs]',
        'input_line_number',
        'debug | {d: .}',
        'stderr | empty',
        'halt_error',
        'if .x == 3 then halt else . end',
      ],
    );
  });

  void test('one instance re-entered 4,000 times, failing programs in between', async () => {
    await stress(await engine({ residentPrograms: 0 }), expected, 4000, 1);
  });

  void test('resident jqs, 4,000 calls', async () => {
    await stress(
      await engine({ residentAfterRuns: 1, awaitResidentStart: true, residentPrograms: 64 }),
      expected,
      4000,
      2,
    );
  });

  void test('resident jqs evicted and restarted (2 at once for 3 programs), 40 calls', async () => {
    const jq = await engine({ residentAfterRuns: 1, awaitResidentStart: true, residentPrograms: 2 });
    const few = new Map(
      [...expected].filter(([k]) => programs.slice(0, 3).some((p) => k.startsWith(`${p}\u0000`))),
    );
    const next = random(3);
    for (let i = 0; i < 40; i++) {
      const input = Math.floor(next() * inputs.length);
      const program = programs[Math.floor(next() * 3)] ?? '.';
      assert.deepEqual(
        await jq.run(program, inputs[input] ?? null),
        few.get(key(program, input)),
        `call ${i}`,
      );
    }
  });

  void test('an output larger than the shared region is answered the ordinary way', async () => {
    const jq = await engine({ residentAfterRuns: 1, awaitResidentStart: true });
    for (let i = 0; i < 3; i++) {
      const result = await jq.run('[range(300000)] | {n: length, all: .}', { i });
      assert.ok(result.ok);
      assert.equal((result.outputs[0] as { n: number }).n, 300000);
    }
  });
});

void describe('jq resident in the sandbox', () => {
  const timeoutMs = 1000;
  const sandbox = createScriptSandbox({ poolSize: 1, stepTimeoutMs: timeoutMs });
  after(() => sandbox.close());
  const step: ScriptStepInput = {
    name: 'maybe-spin',
    type: 'jq',
    expression: 'if .spin then (last(range(1e12)) | {n: .}) else {ok: .i} end',
  };

  void test('a runaway input to a resident jq ends at the time limit, its thread with it', async () => {
    await sandbox.ready();
    // Run until the resident jq answers (steps of a few hundredths of a millisecond). On a loaded
    // machine most steps are slowed by other work, so keep trying for a few seconds, not a count.
    let fastest = Infinity;
    const until = Date.now() + 8000;
    for (let i = 0; (i < 400 || Date.now() < until) && fastest > 0.5; i++) {
      const run = await sandbox.run([step], { spin: false, i });
      assert.deepEqual(run.variablesAfter.ok, i);
      fastest = Math.min(fastest, run.steps[0]?.durationMs ?? Infinity);
    }
    assert.ok(fastest <= 0.5, `the resident jq never answered (fastest step ${fastest} ms)`);

    const spun = await sandbox.run([step], { spin: true, i: 0 });
    assert.equal(spun.steps[0]?.error?.message, `jq step exceeded the time limit of ${timeoutMs} ms`);

    await sandbox.ready(); // the worker replacing the terminated one
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const used = process.cpuUsage(cpu);
    assert.ok(used.user + used.system < 500_000, `the process kept spinning: ${used.user + used.system} µs`);

    const afterwards = await sandbox.run([step], { spin: false, i: 7 });
    assert.deepEqual(afterwards.variablesAfter.ok, 7);
  });
});
