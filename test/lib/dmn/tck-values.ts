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

/** A test case whose inputs or expected results could not be read: it fails with this reason. */
export interface UnreadableCase {
  id: string;
  unreadable: string;
}

/**
 * Reads the test cases of a `*-test-01.xml` file. A case whose values cannot be converted is returned
 * as an {@link UnreadableCase}, so that one case (not the file, not the suite) fails.
 */
export function readCases(doc: XmlElement): {
  modelName: string | null;
  cases: (TckCase | UnreadableCase)[];
} {
  const modelName = childrenNamed(doc, 'modelName')[0]?.text.trim() ?? null;
  const cases = childrenNamed(doc, 'testCase').map((tc, i): TckCase | UnreadableCase => {
    const id = attr(tc, 'id') ?? String(i + 1);
    const inputs: Record<string, unknown> = {};
    try {
      for (const node of childrenNamed(tc, 'inputNode')) inputs[attr(node, 'name') ?? ''] = readValue(node);
    } catch (err) {
      return { id, unreadable: `inputs cannot be read: ${message(err)}` };
    }
    let results: TckCase['results'];
    try {
      results = childrenNamed(tc, 'resultNode').map((node) => {
        const expected = childrenNamed(node, 'expected')[0];
        return {
          name: attr(node, 'name') ?? '',
          expected: expected === undefined ? null : readValue(expected),
          errorResult: attr(node, 'errorResult') === 'true',
        };
      });
    } catch (err) {
      return { id, unreadable: `expected results cannot be read: ${message(err)}` };
    }
    return {
      id,
      type: (attr(tc, 'type') ?? 'decision') as TckCase['type'],
      invocableName: attr(tc, 'invocableName') ?? null,
      inputs,
      results,
    };
  });
  return { modelName, cases };
}

/** The message of a thrown value. */
export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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

const NUMBER_TYPES = new Set([
  'decimal',
  'double',
  'float',
  'integer',
  'int',
  'long',
  'short',
  'byte',
  'nonNegativeInteger',
  'nonPositiveInteger',
  'positiveInteger',
  'negativeInteger',
  'unsignedLong',
  'unsignedInt',
  'unsignedShort',
  'unsignedByte',
]);

// xsd:date / xsd:dateTime lexical form: an optional minus, a year of four or more digits, the rest.
const XSD_YEAR = /^(-?)(\d{4,})(-.*)$/;

/**
 * Converts a typed `value` element. Throws when the text is not of its `xsi:type` or the type is one
 * the reader does not know: a silent null or string would turn into a wrong input, not a failed case.
 */
function readScalar(value: XmlElement): unknown {
  if (attr(value, 'nil') === 'true') return null;
  const text = value.text;
  const type = attr(value, 'type');
  if (type === undefined) return text;
  const local = type.replace(/^\w+:/, '');
  if (NUMBER_TYPES.has(local)) return readNumber(text.trim(), type);
  switch (local) {
    case 'string':
    case 'anySimpleType':
      return text;
    case 'boolean':
      return readBoolean(text.trim());
    case 'date':
      return readTemporal(text.trim(), type, readDate);
    case 'dateTime':
      return readTemporal(text.trim(), type, readDateTime);
    case 'time':
      return readTemporal(text.trim(), type, time);
    case 'duration':
      return readTemporal(text.trim(), type, duration);
    default:
      throw new Error(`unsupported xsi:type ${type} (value ${JSON.stringify(text)})`);
  }
}

function readNumber(text: string, type: string): number {
  if (text === 'INF') return Infinity;
  if (text === '-INF') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    throw new Error(`${JSON.stringify(text)} is not a ${type}`);
  }
  return Number(text);
}

function readBoolean(text: string): boolean {
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new Error(`${JSON.stringify(text)} is not a xsd:boolean`);
}

function readTemporal<T>(text: string, type: string, read: (text: string) => T | null): T {
  const result = read(text);
  if (result === null) throw new Error(`${JSON.stringify(text)} is not a ${type}`);
  return result;
}

/**
 * The FEEL engine holds any year its temporal values can (negative ones and ones past 9999, as
 * `date(-1, 1, 1)` shows) but its string parser refuses a leading minus; such a year is read through
 * a year-1 value of the same month and day, then moved to its year (XSD 1.1: `-0001` is year -1).
 */
function readDate(text: string): FeelDate | null {
  const year = extendedYear(text);
  if (year === null) return parseDate(text);
  const base = parseDate(`${year.base}${year.rest}`);
  return base === null ? null : new FeelDate(base.unwrap().with({ year: year.year }));
}

function readDateTime(text: string): FeelDateTime | null {
  const year = extendedYear(text);
  if (year === null) return dateAndTime(text);
  const base = dateAndTime(`${year.base}${year.rest}`);
  return base === null ? null : new FeelDateTime(base.unwrap().with({ year: year.year }), base.zone);
}

/**
 * A year the engine's parser does not take (negative, or more than four digits), with a stand-in
 * year of the same leap-ness to parse the month and day against; null for an ordinary year.
 */
function extendedYear(text: string): { year: number; base: string; rest: string } | null {
  const m = XSD_YEAR.exec(text);
  if (m === null) return null;
  const [, sign, digits, rest] = m as unknown as [string, string, string, string];
  if (sign === '' && digits.length === 4) return null;
  if (digits.length > 4 && digits.startsWith('0'))
    throw new Error(`year ${sign}${digits} has a leading zero`);
  if (sign === '-' && /^0+$/.test(digits)) throw new Error(`year -${digits} is not allowed (use 0000)`);
  const magnitude = Number(digits);
  const leap = magnitude % 4 === 0 && (magnitude % 100 !== 0 || magnitude % 400 === 0);
  return { year: sign === '-' ? -magnitude : magnitude, base: leap ? '2000' : '2001', rest };
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
