import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { RhaiError } from '../../../src/lib/rhai/errors.js';
import { compileSource, execute } from '../../../src/lib/rhai/interpreter.js';
import type { RhaiLimits } from '../../../src/lib/rhai/limits.js';
import { resolveLimits } from '../../../src/lib/rhai/limits.js';
import type { RhaiValue } from '../../../src/lib/rhai/values.js';
import { RhaiBlob, RhaiChar, RhaiFloat, toDebug } from '../../../src/lib/rhai/values.js';
import { conformanceSuite } from '../../helpers/conformance.js';

/** Pass count reached so far; it only goes up. Excluded cases never count. */
const RHAI_CONFORMANCE_FLOOR = 481;

/**
 * Documented exclusions (docs/workflow/scripts.md, "Rhai conformance: what does not run"): a rule
 * names a feature of the script and of the failure, never a single case.
 */
const exclusions: { name: string; explains: (c: Case, why: string) => boolean }[] = [
  {
    // weft always disables `eval` (a step must not compile code at run time).
    name: 'eval is always disabled',
    explains: (c, why) => /\beval\s*\(/.test(c.script) && why.includes("'eval' is a disabled symbol"),
  },
];

interface Case {
  id: string;
  api: 'eval' | 'eval_expression' | 'run' | 'compile' | 'compile_expression';
  eval_type?: string;
  script: string;
  expect: {
    type?: string;
    value?: unknown;
    value_text?: string;
    elem_type?: string;
    tolerance?: number;
    error?: string;
    parse_error?: string;
    inner_error?: string;
    ok?: boolean;
  };
  limits?: Record<string, number>;
  disabled_symbols?: string[];
}

const LIMIT_KEYS: Record<string, keyof RhaiLimits> = {
  max_operations: 'maxOperations',
  max_call_levels: 'maxCallLevels',
  max_expr_depth: 'maxExprDepth',
  max_function_expr_depth: 'maxFunctionExprDepth',
  max_string_size: 'maxStringSize',
  max_array_size: 'maxArraySize',
  max_map_size: 'maxMapSize',
  max_variables: 'maxVariables',
};

/** Rhai's own defaults as the README states them (debug builds), not the service's. */
function limitsOf(c: Case): Partial<RhaiLimits> {
  const l: Record<string, unknown> = {
    maxOperations: 0,
    maxCallLevels: 8,
    maxExprDepth: 32,
    maxFunctionExprDepth: 16,
    maxStringSize: 0,
    maxArraySize: 0,
    maxMapSize: 0,
    timeoutMs: 5000,
    disabledSymbols: c.disabled_symbols ?? [],
  };
  for (const [k, v] of Object.entries(c.limits ?? {})) {
    const key = LIMIT_KEYS[k];
    if (key) l[key] = v;
  }
  return l as Partial<RhaiLimits>;
}

function rhaiType(v: RhaiValue): string {
  if (typeof v === 'number' || typeof v === 'bigint') return 'INT';
  if (v instanceof RhaiFloat) return 'FLOAT';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'String';
  if (v instanceof RhaiChar) return 'char';
  if (v === undefined) return 'unit';
  if (Array.isArray(v)) return 'Array';
  if (v instanceof Map) return 'Map';
  if (v instanceof RhaiBlob) return 'Blob';
  return 'other';
}

function sameValue(type: string, actual: RhaiValue, expected: unknown, c: Case['expect']): boolean {
  if (rhaiType(actual) !== type) return false;
  switch (type) {
    case 'INT':
      if (c.value_text !== undefined && type === c.type)
        return (actual as number | bigint).toString() === c.value_text;
      return Number(actual) === expected;
    case 'FLOAT': {
      const x = (actual as RhaiFloat).value;
      return c.tolerance !== undefined && type === c.type
        ? Math.abs(x - (expected as number)) < c.tolerance
        : x === expected;
    }
    case 'char':
      return (actual as RhaiChar).value === expected;
    case 'unit':
      return expected === null;
    case 'Array': {
      const xs = actual as RhaiValue[];
      const ys = expected as unknown[];
      return xs.length === ys.length && xs.every((x, i) => sameValue(c.elem_type ?? 'INT', x, ys[i], {}));
    }
    case 'Blob': {
      const bs = Array.from((actual as RhaiBlob).bytes);
      return JSON.stringify(bs) === JSON.stringify(expected);
    }
    default:
      return actual === expected;
  }
}

/** Runs one case; returns undefined on pass or a short reason. */
function runCase(c: Case): string | undefined {
  const limits = resolveLimits(limitsOf(c));
  const exprMode = c.api === 'eval_expression' || c.api === 'compile_expression';
  let value: RhaiValue;
  try {
    const script = compileSource(c.script, limits, exprMode ? 'expression' : 'script');
    if (c.api === 'compile' || c.api === 'compile_expression') value = undefined;
    else value = execute(script, new Map(), limits).value;
  } catch (e) {
    if (!(e instanceof RhaiError)) return `host error: ${String(e)}`;
    const want = c.expect.error;
    if (want === undefined)
      return `unexpected ${e.kind}${e.parseError ? `/${e.parseError}` : ''}: ${e.message}`;
    if (want === 'Any') return undefined;
    if (e.kind !== want) return `expected ${want}, got ${e.kind}: ${e.message}`;
    if (c.expect.parse_error && e.parseError !== c.expect.parse_error) {
      return `expected ${c.expect.parse_error}, got ${e.parseError ?? '?'}: ${e.message}`;
    }
    if (c.expect.inner_error && e.inner?.kind !== c.expect.inner_error)
      return `expected inner ${c.expect.inner_error}, got ${e.inner?.kind ?? '-'}`;
    return undefined;
  }
  const evalType = c.eval_type ?? 'Dynamic';
  const typeOk =
    c.api === 'run' || c.api.startsWith('compile') || evalType === 'Dynamic' || rhaiType(value) === evalType;
  if (c.expect.error !== undefined) {
    if (!typeOk && (c.expect.error === 'ErrorMismatchOutputType' || c.expect.error === 'Any'))
      return undefined;
    return `expected error ${c.expect.error}, got ${rhaiType(value)}`;
  }
  if (!typeOk) return `output type ${rhaiType(value)}, wanted ${evalType}`;
  if (c.expect.ok) return undefined;
  if (c.expect.type !== undefined && !sameValue(c.expect.type, value, c.expect.value, c.expect)) {
    return `expected ${c.expect.type} ${JSON.stringify(c.expect.value)}, got ${rhaiType(value)} ${toDebug(value)}`;
  }
  return undefined;
}

const rhaiSuite = conformanceSuite('rhai');

test('rhai conformance cases', { skip: rhaiSuite.skip }, () => {
  const file = resolve(rhaiSuite.directory, 'rhai-cases.json');
  const cases = JSON.parse(readFileSync(file, 'utf8')) as Case[];
  const failures: string[] = [];
  const excluded: string[] = [];
  for (const c of cases) {
    const why = runCase(c);
    if (why === undefined) continue;
    const rule = exclusions.find((x) => x.explains(c, why));
    if (rule) excluded.push(`${c.id}: excluded (${rule.name})`);
    else failures.push(`${c.id}: ${why}`);
  }
  const passed = cases.length - failures.length - excluded.length;
  console.log(
    `rhai conformance: ${passed} passed, ${excluded.length} excluded (documented in docs/workflow/scripts.md), ${failures.length} failed of ${cases.length}`,
  );
  for (const x of excluded) console.log(`  ${x}`);
  if (process.env.RHAI_VERBOSE === '1') for (const f of failures) console.log(`  FAIL ${f}`);
  assert.ok(passed >= RHAI_CONFORMANCE_FLOOR, `conformance fell below the floor ${RHAI_CONFORMANCE_FLOOR}`);
});
