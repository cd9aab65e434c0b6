import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { celEnvironment, celSource } from '../../../src/records/access/cel-rules.js';

// Cases of the CEL conformance suite (cel-spec, via @bufbuild/cel-spec) that apply to JSON data and
// pass with our CEL environment. It only goes up.
const CEL_CONFORMANCE_FLOOR = 1196;

/** A conformance `Value` in its JSON form. */
type SpecValue = Record<string, unknown>;
interface SpecTest {
  name?: string;
  expr: string;
  value?: SpecValue;
  evalError?: unknown;
  bindings?: Record<string, { value?: SpecValue }>;
  container?: string;
  typeEnv?: unknown[];
  typedResult?: unknown;
  checkOnly?: boolean;
  /** Run without type checking: the case's type errors are evaluation errors. */
  disableCheck?: boolean;
}
interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: SpecTest }[];
}

const jsonKinds = new Set([
  'int64Value',
  'doubleValue',
  'stringValue',
  'boolValue',
  'nullValue',
  'listValue',
  'mapValue',
]);
// Protocol-buffer messages, bytes, unsigned integers and type values have no JSON counterpart.
const nonJsonSyntax =
  /TestAllTypes|google\.protobuf|\bproto[23]?\b|NestedMessage|GlobalEnum|NestedEnum|\bbytes\b|\bb["']|\d+u\b|\buint\b|\btype\(|\.Value\b/i;
const skippedSuites = new Set([
  'proto2',
  'proto2_ext',
  'proto3',
  'wrappers',
  'enums',
  'type_deductions',
  'encoders_ext',
]);

/** The JS value of a JSON-kind conformance value, or undefined when it is not one. */
function toJs(value: SpecValue): { ok: boolean; value?: unknown } {
  const [kind] = Object.keys(value);
  if (kind === undefined || !jsonKinds.has(kind)) return { ok: false };
  const raw = value[kind];
  switch (kind) {
    case 'int64Value':
      return { ok: true, value: BigInt(raw as string | number) };
    case 'doubleValue':
      return { ok: true, value: typeof raw === 'string' ? Number(raw) : raw };
    case 'nullValue':
      return { ok: true, value: null };
    case 'listValue': {
      const items = ((raw as { values?: SpecValue[] }).values ?? []).map(toJs);
      return items.every((item) => item.ok)
        ? { ok: true, value: items.map((item) => item.value) }
        : { ok: false };
    }
    case 'mapValue': {
      const entries = (raw as { entries?: { key: SpecValue; value: SpecValue }[] }).entries ?? [];
      const object: Record<string, unknown> = {};
      for (const entry of entries) {
        const key = toJs(entry.key);
        const item = toJs(entry.value);
        if (!key.ok || !item.ok || typeof key.value !== 'string') return { ok: false };
        object[key.value] = item.value;
      }
      return { ok: true, value: object };
    }
    default:
      return { ok: true, value: raw };
  }
}

function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number' && Number.isNaN(expected))
    return typeof actual === 'number' && Number.isNaN(actual);
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => sameValue(actual[index], item))
    );
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const entries: Record<string, unknown> =
      actual instanceof Map
        ? (Object.fromEntries(actual as Map<string, unknown>) as Record<string, unknown>)
        : (actual as Record<string, unknown>);
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(entries).length &&
      keys.every((key) => sameValue(entries[key], (expected as Record<string, unknown>)[key]))
    );
  }
  return Object.is(actual, expected) || actual === expected;
}

/** The cases that apply to JSON data, with their bindings and expected outcome in JS. */
function applicable(
  suite: Suite,
  path: string[] = [],
): { name: string; test: SpecTest; bindings: Record<string, unknown>; expected?: unknown }[] {
  if (skippedSuites.has(suite.name)) return [];
  const found = [];
  for (const { original } of suite.tests ?? []) {
    if (original.container || original.typedResult || original.checkOnly || nonJsonSyntax.test(original.expr))
      continue;
    const bindings: Record<string, unknown> = {};
    let json = true;
    for (const [name, binding] of Object.entries(original.bindings ?? {})) {
      const converted = binding.value ? toJs(binding.value) : { ok: false };
      if (!converted.ok) json = false;
      else bindings[name] = converted.value;
    }
    if (!json) continue;
    const name = [...path, suite.name, original.name ?? original.expr].join('/');
    // cel-spec's SimpleTest: "An unspecified result defaults to a matcher for the true boolean value."
    if (original.evalError !== undefined) found.push({ name, test: original, bindings });
    else {
      const expected = toJs(original.value ?? { boolValue: true });
      if (expected.ok) found.push({ name, test: original, bindings, expected: expected.value });
    }
  }
  for (const child of suite.suites ?? []) found.push(...applicable(child, [...path, suite.name]));
  return found;
}

describe('CEL conformance (cel-spec cases on JSON data) with the ABAC environment', () => {
  test('cases pass at or above the floor', () => {
    const cases = applicable(tests as Suite);
    assert.ok(cases.length > 500, `${cases.length} applicable cases`);
    const failures: string[] = [];
    const env = celEnvironment({ unlistedVariablesAreDyn: true });
    const uncheckedEnv = celEnvironment({ unlistedVariablesAreDyn: true, uncheckedEvaluation: true });
    for (const { name, test: spec, bindings, expected } of cases) {
      let outcome: string | undefined;
      try {
        const result: unknown = (spec.disableCheck ? uncheckedEnv : env).evaluate(
          celSource(spec.expr),
          bindings,
        );
        if (spec.evalError !== undefined) outcome = 'expected an error';
        else if (!sameValue(result, expected)) outcome = `got ${String(result)}`;
      } catch (error) {
        if (spec.evalError === undefined)
          outcome = `threw ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;
      }
      if (outcome !== undefined)
        failures.push(`  ${name}: ${spec.expr.slice(0, 80)} — ${outcome.slice(0, 120)}`);
    }
    const passed = cases.length - failures.length;
    console.log(
      `CEL conformance: ${passed} passed, ${failures.length} failed of ${cases.length} applicable cases`,
    );
    if (process.env.CEL_CONFORMANCE_VERBOSE) console.log(failures.join('\n'));
    assert.ok(passed >= CEL_CONFORMANCE_FLOOR, `${passed} passed, floor is ${CEL_CONFORMANCE_FLOOR}`);
  });
});
