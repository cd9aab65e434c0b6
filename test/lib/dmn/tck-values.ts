import {
  dateAndTime,
  duration,
  FeelDate,
  FeelDateTime,
  FeelDuration,
  FeelTime,
  parseDate,
  time,
} from 'feelin';
import { attr, childrenNamed, type XmlElement } from './tck-xml.js';

/** A test case of the kit: inputs by name, and the results expected. */
export interface TckCase {
  id: string;
  type: 'decision' | 'decisionService' | 'bkm';
  invocableName: string | null;
  inputs: Record<string, unknown>;
  results: { name: string; expected: unknown; errorResult: boolean }[];
}

/** Reads the test cases of a `*-test-01.xml` file. */
export function readCases(doc: XmlElement): { modelName: string | null; cases: TckCase[] } {
  const modelName = childrenNamed(doc, 'modelName')[0]?.text.trim() ?? null;
  const cases = childrenNamed(doc, 'testCase').map((tc, i) => {
    const inputs: Record<string, unknown> = {};
    for (const node of childrenNamed(tc, 'inputNode')) inputs[attr(node, 'name') ?? ''] = readValue(node);
    return {
      id: attr(tc, 'id') ?? String(i + 1),
      type: (attr(tc, 'type') ?? 'decision') as TckCase['type'],
      invocableName: attr(tc, 'invocableName') ?? null,
      inputs,
      results: childrenNamed(tc, 'resultNode').map((node) => {
        const expected = childrenNamed(node, 'expected')[0];
        return {
          name: attr(node, 'name') ?? '',
          expected: expected === undefined ? null : readValue(expected),
          errorResult: attr(node, 'errorResult') === 'true',
        };
      }),
    };
  });
  return { modelName, cases };
}

/** Converts a `valueType` element (value, components or list) into a FEEL value. */
export function readValue(element: XmlElement): unknown {
  const value = childrenNamed(element, 'value')[0];
  if (value !== undefined) return readScalar(value);
  const list = childrenNamed(element, 'list')[0];
  if (list !== undefined) {
    if (attr(list, 'nil') === 'true') return null;
    return childrenNamed(list, 'item').map(readValue);
  }
  const components = childrenNamed(element, 'component');
  if (components.length > 0) {
    const context: Record<string, unknown> = {};
    for (const c of components)
      context[attr(c, 'name') ?? ''] = attr(c, 'nil') === 'true' ? null : readValue(c);
    return context;
  }
  return null;
}

function readScalar(value: XmlElement): unknown {
  if (attr(value, 'nil') === 'true') return null;
  const text = value.text;
  switch ((attr(value, 'type') ?? '').replace(/^\w+:/, '')) {
    case 'decimal':
    case 'double':
    case 'int':
    case 'integer':
    case 'long':
      return readNumber(text.trim());
    case 'boolean':
      return text.trim() === 'true';
    case 'date':
      return parseDate(text.trim());
    case 'dateTime':
      return dateAndTime(text.trim());
    case 'time':
      return time(text.trim());
    case 'duration':
      return duration(text.trim());
    default:
      return text;
  }
}

function readNumber(text: string): number {
  if (text === 'INF') return Infinity;
  if (text === '-INF') return -Infinity;
  return Number(text);
}

const RELATIVE_TOLERANCE = 1e-12;

/**
 * Compares a result with an expected value by meaning: numbers by value (within a relative 1e-12, as
 * we compute in binary doubles where the kit assumes decimal128), dates, times and durations by their
 * canonical ISO form, lists and contexts structurally.
 */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return false;
    if (actual === expected) return true;
    return Math.abs(actual - expected) <= RELATIVE_TOLERANCE * Math.max(Math.abs(actual), Math.abs(expected));
  }
  if (
    expected instanceof FeelDate ||
    expected instanceof FeelTime ||
    expected instanceof FeelDateTime ||
    expected instanceof FeelDuration
  ) {
    return (
      typeof actual === 'object' &&
      actual !== null &&
      Object.getPrototypeOf(actual) === Object.getPrototypeOf(expected) &&
      (actual as { iso: string }).iso === expected.iso
    );
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => sameValue(actual[i], e))
    );
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const keys = Object.keys(e);
    return (
      keys.length === Object.keys(a).length && keys.every((k) => Object.hasOwn(a, k) && sameValue(a[k], e[k]))
    );
  }
  return actual === expected;
}

/** A short printable form of a value, for the notes column. */
export function show(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (v === undefined ? null : v));
    return (text ?? String(value)).slice(0, 120);
  } catch {
    return String(value).slice(0, 120);
  }
}
