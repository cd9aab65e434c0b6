import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { Pool } from '../../../src/platform/database/pool.js';
import { startTestWorkflow, type TestWorkflow } from '../../helpers/workflow.js';

interface StepBody {
  name: string;
  type: string;
  status: 'ok' | 'error';
  output: unknown;
  duration_ms: number;
  error?: { message: string; line: number | null; column: number | null };
}
interface ExecuteResponse {
  steps: StepBody[];
  variables_after: Record<string, unknown>;
}
interface ErrorResponse {
  code: string;
  message: string;
  details?: { errors?: { index?: number; name?: string; code?: string; message: string; path?: string }[] };
}

const stepTimeoutMs = 1000;

// Every row of every table, hashed per table: any insert, update or delete changes it.
async function databaseFingerprint(pool: Pool): Promise<Record<string, string>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables ORDER BY 1`,
  );
  assert.ok(tables.length > 0, 'the workflow database has tables');
  const fingerprint: Record<string, string> = {};
  for (const { name } of tables) {
    const { rows } = await pool.query<{ rows: string; digest: string | null }>(
      `SELECT count(*)::text AS rows, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${name} t`,
    );
    fingerprint[name] = `${rows[0]?.rows}:${rows[0]?.digest ?? ''}`;
  }
  return fingerprint;
}

describe('POST /api/v1/scripts/execute', () => {
  let workflow: TestWorkflow;
  let token: string;
  before(async () => {
    workflow = await startTestWorkflow({
      env: { WORKFLOW_SCRIPT_STEP_TIMEOUT_MS: String(stepTimeoutMs), WORKFLOW_SCRIPT_WORKERS: '2' },
    });
    await workflow.createUser('dev@example.com', 'dev password 1');
    token = await workflow.login('dev@example.com', 'dev password 1');
  });
  after(() => workflow.close());

  const execute = (body: unknown, bearer: string | null = token) =>
    workflow.request({
      method: 'POST',
      url: '/api/v1/scripts/execute',
      ...(bearer === null ? {} : { token: bearer }),
      body,
      headers: { 'content-type': 'application/json' },
    });

  const pipeline = [
    { name: 'totals', type: 'jq', expression: '{total: ([.lines[] | .qty * .price] | add)}' },
    { name: 'gold', type: 'feel', expression: 'tier = "gold"', result_variable: 'isGold' },
    {
      name: 'discount',
      type: 'rhai',
      expression: 'let rate = if isGold { 0.1 } else { 0.0 };\nnet = total * (1.0 - rate);\nnet',
      result_variable: 'netResult',
    },
  ];
  const sample = {
    lines: [
      { qty: 2, price: 10 },
      { qty: 1, price: 5 },
    ],
    tier: 'gold',
    net: 0,
  };

  test('needs authentication', async () => {
    const response = await execute({ steps: pipeline, variables: sample }, null);
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { code: 'U401', message: 'Unauthenticated' });
  });

  test('runs jq, FEEL and Rhai steps in order over the accumulated variables', async () => {
    const response = await execute({ steps: pipeline, variables: sample, run_until_step: null });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<ExecuteResponse>();
    assert.deepEqual(
      body.steps.map(({ name, type, status, output }) => ({ name, type, status, output })),
      [
        { name: 'totals', type: 'jq', status: 'ok', output: { total: 25 } },
        { name: 'gold', type: 'feel', status: 'ok', output: true },
        { name: 'discount', type: 'rhai', status: 'ok', output: 22.5 },
      ],
    );
    for (const step of body.steps) {
      assert.ok(typeof step.duration_ms === 'number' && step.duration_ms >= 0);
      assert.equal(step.error, undefined);
    }
    // Rhai merges back every scope variable it changed or added, `let`s included.
    assert.deepEqual(body.variables_after, {
      ...sample,
      total: 25,
      isGold: true,
      net: 22.5,
      rate: 0.1,
      netResult: 22.5,
    });
  });

  test('run_until_step stops after the named step; absent variables are {}', async () => {
    const response = await execute({
      steps: [
        { name: 'a', type: 'jq', expression: '{a: 1}' },
        { name: 'b', type: 'jq', expression: '{b: (.a + 1)}' },
        { name: 'c', type: 'jq', expression: '{c: 3}' },
      ],
      run_until_step: 'b',
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<ExecuteResponse>();
    assert.deepEqual(
      body.steps.map((s) => s.name),
      ['a', 'b'],
    );
    assert.deepEqual(body.variables_after, { a: 1, b: 2 });
  });

  test('a run_until_step that names no step is a 400', async () => {
    const response = await execute({ steps: pipeline, variables: sample, run_until_step: 'nope' });
    assert.equal(response.statusCode, 400);
    const body = response.json<ErrorResponse>();
    assert.equal(body.code, 'U400');
    assert.match(body.message, /run_until_step "nope" names no step/);
  });

  test('a runtime error is status "error" in a 200, with its position, and ends the run', async () => {
    const response = await execute({
      steps: [
        { name: 'set', type: 'jq', expression: '{x: 1}' },
        { name: 'broken', type: 'rhai', expression: 'let a = 1;\nlet b = a +;' },
        { name: 'never', type: 'jq', expression: '{y: 2}' },
      ],
      variables: { start: true },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<ExecuteResponse>();
    assert.equal(body.steps.length, 2);
    const failed = body.steps[1];
    assert.equal(failed?.status, 'error');
    assert.equal(failed?.output, null);
    assert.equal(failed?.error?.line, 2);
    assert.equal(typeof failed?.error?.column, 'number');
    assert.ok((failed?.error?.message ?? '').length > 0);
    assert.deepEqual(body.variables_after, { start: true, x: 1 });
  });

  test('a jq program that does not produce one object is a step error', async () => {
    const response = await execute({
      steps: [{ name: 'n', type: 'jq', expression: '.a' }],
      variables: { a: 5 },
    });
    assert.equal(response.statusCode, 200);
    const [step] = response.json<ExecuteResponse>().steps;
    assert.equal(step?.status, 'error');
    assert.match(step?.error?.message ?? '', /must produce an object/);
  });

  test('every invalid step is listed; the first problem gives the code (U020 before U021)', async () => {
    const response = await execute({
      steps: [
        { name: 'ok', type: 'jq', expression: '{}' },
        { name: 'python', type: 'python', expression: 'print(1)' },
        { name: 'blank', type: 'jq', expression: '  \n ' },
        { name: 'both', type: 'lua', expression: '' },
      ],
      variables: {},
    });
    assert.equal(response.statusCode, 400);
    const body = response.json<ErrorResponse>();
    assert.equal(body.code, 'U020');
    assert.deepEqual(
      body.details?.errors?.map(({ index, name, code }) => ({ index, name, code })),
      [
        { index: 1, name: 'python', code: 'U020' },
        { index: 2, name: 'blank', code: 'U021' },
        { index: 3, name: 'both', code: 'U020' },
        { index: 3, name: 'both', code: 'U021' },
      ],
    );
    for (const error of body.details?.errors ?? []) assert.ok(error.message.length > 0);
  });

  test('an empty expression alone gives U021', async () => {
    const response = await execute({ steps: [{ name: 'e', type: 'feel', expression: '' }], variables: {} });
    assert.equal(response.statusCode, 400);
    const body = response.json<ErrorResponse>();
    assert.equal(body.code, 'U021');
    assert.equal(body.details?.errors?.length, 1);
  });

  const step = { name: 's', type: 'jq', expression: '{}' };
  const badRequests: [string, unknown][] = [
    ['no steps', { variables: {} }],
    ['an empty step list', { steps: [], variables: {} }],
    ['51 steps', { steps: Array.from({ length: 51 }, (_, i) => ({ ...step, name: `s${i}` })) }],
    ['an expression over 64 KiB', { steps: [{ ...step, expression: `{a: ${'1'.repeat(65_537)}}` }] }],
    ['a step type that is not a string', { steps: [{ ...step, type: 42 }] }],
    ['a step without a name', { steps: [{ type: 'jq', expression: '{}' }] }],
    ['an unknown step field', { steps: [{ ...step, language: 'jq' }] }],
    ['variables that are an array', { steps: [step], variables: [1, 2] }],
    ['run_until_step that is a number', { steps: [step], run_until_step: 3 }],
    ['variables nested 65 levels deep', { steps: [step], variables: { a: nest(64) } }],
    [
      'variables nested 100,000 levels deep',
      `{"steps":[${JSON.stringify(step)}],"variables":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    ],
  ];
  for (const [what, body] of badRequests) {
    test(`${what} is a 400`, async () => {
      const response = await execute(body);
      assert.equal(response.statusCode, 400, response.body.slice(0, 300));
      assert.equal(response.json<ErrorResponse>().code, 'U400');
    });
  }

  test('variables nested 64 levels deep are accepted', async () => {
    const response = await execute({ steps: [step], variables: { a: nest(63) } });
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
  });

  test('malformed JSON is a 400 and a body over the limit a 413', async () => {
    const malformed = await workflow.request({
      method: 'POST',
      url: '/api/v1/scripts/execute',
      token,
      body: '{"steps": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json<ErrorResponse>().code, 'U400');
    const huge = await execute({
      steps: [step],
      variables: { blob: 'x'.repeat(workflow.config.bodyLimitBytes) },
    });
    assert.equal(huge.statusCode, 413);
    assert.equal(huge.json<ErrorResponse>().code, 'U413');
  });

  test('nothing is written to the database', async () => {
    const before = await databaseFingerprint(workflow.database.pool);
    const ok = await execute({ steps: pipeline, variables: sample });
    assert.equal(ok.statusCode, 200);
    const failing = await execute({
      steps: [{ name: 'x', type: 'rhai', expression: 'throw "no"' }],
      variables: {},
    });
    assert.equal(failing.json<ExecuteResponse>().steps[0]?.status, 'error');
    const invalid = await execute({ steps: [{ name: 'x', type: 'sql', expression: 'DELETE FROM users' }] });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(await databaseFingerprint(workflow.database.pool), before);
  });

  test('hostile scripts end with step errors while /health keeps answering promptly', async () => {
    const started = performance.now();
    const rhaiLoop = execute({
      steps: [{ name: 'spin', type: 'rhai', expression: 'loop {}' }],
      variables: {},
    });
    const jqRepeat = execute({
      steps: [{ name: 'grow', type: 'jq', expression: 'repeat(.)' }],
      variables: { a: 1 },
    });
    const healthTimes: number[] = [];
    let settled = false;
    const both = Promise.all([rhaiLoop, jqRepeat]).finally(() => (settled = true));
    while (!settled && performance.now() - started < stepTimeoutMs * 5) {
      const asked = performance.now();
      const health = await workflow.request({ method: 'GET', url: '/health' });
      healthTimes.push(performance.now() - asked);
      assert.equal(health.statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [rhai, jq] = await both;
    const elapsed = performance.now() - started;

    const rhaiStep = rhai.json<ExecuteResponse>().steps[0];
    assert.equal(rhai.statusCode, 200);
    assert.equal(rhaiStep?.status, 'error');
    assert.match(rhaiStep?.error?.message ?? '', /Too many operations|time limit/);
    const jqStep = jq.json<ExecuteResponse>().steps[0];
    assert.equal(jq.statusCode, 200);
    assert.equal(jqStep?.status, 'error');
    assert.ok((jqStep?.error?.message ?? '').length > 0);

    assert.ok(elapsed < stepTimeoutMs * 4, `hostile steps took ${Math.round(elapsed)} ms`);
    assert.ok(healthTimes.length >= 3, `only ${healthTimes.length} health checks ran while the steps ran`);
    // Were a script running on the event loop, /health would wait for the step's whole time limit;
    // half of it leaves room for a loaded machine without hiding a blocked loop.
    const slowest = Math.max(...healthTimes);
    assert.ok(slowest < stepTimeoutMs / 2, `slowest /health took ${Math.round(slowest)} ms`);

    // The replaced worker serves the next request.
    const next = await execute({ steps: [step], variables: {} });
    assert.equal(next.json<ExecuteResponse>().steps[0]?.status, 'ok');
  });
});

describe('script limits from the configuration', () => {
  let workflow: TestWorkflow;
  let token: string;
  before(async () => {
    workflow = await startTestWorkflow({
      env: { WORKFLOW_RHAI_MAX_OPERATIONS: '500', WORKFLOW_RHAI_DISABLED_SYMBOLS: 'debug' },
    });
    await workflow.createUser('dev@example.com', 'dev password 1');
    token = await workflow.login('dev@example.com', 'dev password 1');
  });
  after(() => workflow.close());

  const rhai = async (expression: string) => {
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/scripts/execute',
      token,
      body: { steps: [{ name: 'r', type: 'rhai', expression }], variables: {} },
    });
    assert.equal(response.statusCode, 200, response.body);
    const [result] = response.json<ExecuteResponse>().steps;
    assert.ok(result !== undefined);
    return result;
  };

  test('WORKFLOW_RHAI_MAX_OPERATIONS caps the operations of a script', async () => {
    assert.equal((await rhai('let s = 0; for i in 0..10 { s += i } s')).output, 45);
    const long = await rhai('let s = 0; for i in 0..1000 { s += i } s');
    assert.equal(long.status, 'error');
    assert.equal(long.error?.message, 'Too many operations');
  });

  test('WORKFLOW_RHAI_DISABLED_SYMBOLS replaces the list, but eval stays disabled', async () => {
    assert.equal((await rhai('print("x"); 1')).status, 'ok');
    assert.equal((await rhai('debug("x"); 1')).error?.message, "'debug' is a disabled symbol");
    assert.equal((await rhai('eval("1")')).error?.message, "'eval' is a disabled symbol");
  });

  test('the configuration always lists eval', () => {
    assert.deepEqual(workflow.config.workflow.scripts.rhai.disabledSymbols, ['eval', 'debug']);
  });
});

function nest(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
