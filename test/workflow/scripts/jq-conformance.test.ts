import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadJqEngine, type JqEngine } from '../../../src/workflow/scripts/jq-engine.js';
import { jsonEqual } from '../../../src/workflow/scripts/json-value.js';
import type { JsonValue } from '../../../src/workflow/scripts/types.js';
import { exclusionFor } from './jq-exclusions.js';
import { parseJqTestFile, type JqTestCase } from './jq-test-file.js';
import { conformanceSuite } from '../../helpers/conformance.js';

// The number of cases of jq's own test files that pass through our jq wrapper. It only goes up.
// Cases a documented exclusion explains (jq-exclusions.ts) are reported apart and never counted here.
const JQ_CONFORMANCE_FLOOR = 852;

const { directory, skip } = conformanceSuite('jq');
// The build includes oniguruma (`test`, `match`, `sub` work), so its regex suites run too.
const files = [
  'jq.test',
  'man.test',
  'base64.test',
  'uri.test',
  'optional.test',
  'onig.test',
  'manonig.test',
];

async function parseValue(jq: JqEngine, text: string): Promise<JsonValue | undefined> {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // jq's parser also reads `nan` and friends; let jq read what JSON.parse cannot.
    const parsed = await jq.run('.', text);
    return parsed.ok && parsed.outputs.length === 1 ? parsed.outputs[0] : undefined;
  }
}

/**
 * The last error jq reported, as jq's own test runner compares it (its error callback keeps only the
 * last message; a syntax error is often followed by a more specific one).
 */
function lastError(stderr: string): string {
  const body = stderr.replace(/\njq: \d+ compile errors?$/, '');
  const start = body.lastIndexOf('jq: error');
  return start < 0 ? body : body.slice(start);
}

/** Why a case failed, or null when it passed. */
async function check(jq: JqEngine, testCase: JqTestCase): Promise<string | null> {
  if (testCase.kind === 'fail') {
    const result = await jq.run(testCase.program, null);
    if (result.ok || result.phase !== 'compile') return 'compiled, but must fail to compile';
    if (testCase.message === null) return null;
    const actual = lastError(result.stderr);
    return actual === testCase.message ? null : `wrong message: ${actual.split('\n')[0]}`;
  }
  const result = await jq.run(testCase.program, testCase.input);
  if (!result.ok && result.phase === 'compile') return `does not compile: ${result.error.message}`;
  const outputs = result.outputs;
  for (const [i, text] of testCase.expected.entries()) {
    const expected = await parseValue(jq, text);
    if (expected === undefined) return `expected value is not JSON: ${text}`;
    const actual = outputs[i];
    if (actual === undefined) {
      return result.ok ? `missing output ${text}` : `error before output ${i + 1}: ${result.error.message}`;
    }
    if (!jsonEqual(actual, expected)) return `expected ${text}, got ${JSON.stringify(actual)}`;
  }
  if (outputs.length > testCase.expected.length) {
    return `superfluous output ${JSON.stringify(outputs[testCase.expected.length])}`;
  }
  return null;
}

void describe('jq conformance (jq 1.8 test files through jq-wasm)', { skip }, async () => {
  const jq = await loadJqEngine();
  let passed = 0;
  let excluded = 0;
  let total = 0;

  for (const file of files) {
    void test(file, async () => {
      const cases = parseJqTestFile(readFileSync(join(directory, file), 'utf8'));
      assert.ok(cases.length > 0, `${file} has cases`);
      const failures: string[] = [];
      const exclusions: string[] = [];
      for (const testCase of cases) {
        const why = await check(jq, testCase);
        if (why === null) continue;
        const where = `  ${file}:${testCase.line} ${testCase.program.slice(0, 80)}`;
        const rule = exclusionFor(testCase, why);
        if (rule) exclusions.push(`${where} — excluded (${rule.name})`);
        else failures.push(`${where} — ${why.slice(0, 160)}`);
      }
      const ok = cases.length - failures.length - exclusions.length;
      passed += ok;
      excluded += exclusions.length;
      total += cases.length;
      console.log(
        `jq conformance ${file}: ${ok} passed, ${exclusions.length} excluded, ${failures.length} failed of ${cases.length}`,
      );
      if (exclusions.length > 0) console.log(exclusions.join('\n'));
      if (failures.length > 0) console.log(failures.join('\n'));
    });
  }

  void test('total reaches the floor', () => {
    const failed = total - passed - excluded;
    console.log(
      `jq conformance: ${passed} passed, ${excluded} excluded (documented in docs/workflow/scripts.md), ${failed} failed of ${total}`,
    );
    assert.ok(passed >= JQ_CONFORMANCE_FLOOR, `${passed} passed, floor is ${JQ_CONFORMANCE_FLOOR}`);
  });
});
