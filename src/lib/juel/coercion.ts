/**
 * The coercions of the EL specification (Jakarta EL 1.23 "Type Conversion", EL 2.2 1.18) over our
 * value types. A coercion that the specification calls an error throws a JuelError.
 */
import { JuelDateTime } from './date-time.js';
import { JuelError } from './errors.js';
import { ExecutionObject, TaskObject } from './host-objects.js';
import type { JuelValue } from './values.js';
import { fromJson, isList, isMap, mapEntry, typeName } from './values.js';

/** Wraps an integer to 64 bits, as Java's long arithmetic does on overflow. */
export function wrapLong(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}

/** Coerce A to Boolean: null and "" are false, a String is true when it is "true" in any case. */
export function toBoolean(value: JuelValue): boolean {
  if (value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  throw cannotCoerce(value, 'Boolean');
}

const LONG_TEXT = /^[+-]?\d+$/;
const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

/** Coerce A to Long: null and "" are 0, a Double is truncated, a String must be a decimal integer. */
export function toLong(value: JuelValue): bigint {
  if (value === null || value === '') return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return doubleToLong(value);
  if (typeof value === 'string' && LONG_TEXT.test(value)) {
    const parsed = BigInt(value);
    if (parsed >= LONG_MIN && parsed <= LONG_MAX) return parsed;
  }
  throw cannotCoerce(value, 'Long');
}

/** Java's `(long) d`: toward zero, saturating, NaN is 0. */
export function doubleToLong(value: number): bigint {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return LONG_MAX;
  if (value <= -(2 ** 63)) return LONG_MIN;
  return BigInt(Math.trunc(value));
}

// Java's Double.valueOf after trimming: decimal digits, NaN, Infinity, an optional f/d suffix.
const DOUBLE_TEXT = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;

/** Coerce A to Double: null and "" are 0, a Long converts, a String must be a Java double literal. */
export function toDouble(value: JuelValue): number {
  if (value === null || value === '') return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const text = javaTrim(value);
    if (DOUBLE_TEXT.test(text)) return Number(text.replace(/[fFdD]$/, ''));
  }
  throw cannotCoerce(value, 'Double');
}

/** Coerce to a Java int (method arguments such as indexes): through Long, then its low 32 bits. */
export function toInt(value: JuelValue): number {
  return Number(BigInt.asIntN(32, toLong(value)));
}

/** True for a String the arithmetic rules treat as a Double: it contains '.', 'e' or 'E'. */
export function isDoubleText(value: JuelValue): boolean {
  return typeof value === 'string' && /[.eE]/.test(value);
}

/** Coerce A to String: null is "", numbers and booleans print as Java prints them, dates as ISO-8601. */
export function toText(value: JuelValue): string {
  if (value === null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'number':
      return javaDoubleText(value);
    default:
      break;
  }
  if (value instanceof Date) return isoText(value);
  if (value instanceof JuelDateTime) return value.toString();
  if (value instanceof ExecutionObject) return `Execution[${value.execution.id ?? ''}]`;
  if (value instanceof TaskObject) return `Task[${value.task.id ?? ''}]`;
  return JSON.stringify(value);
}

/** A Date's ISO-8601 text; an invalid Date is an error rather than a RangeError. */
export function isoText(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new JuelError('The date is not a valid date');
  return date.toISOString();
}

/**
 * Java's Double.toString: at least one digit after the point (`2.0`), and scientific notation
 * (`1.0E7`, `1.0E-4`) outside [10^-3, 10^7).
 */
export function javaDoubleText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(value);
  if (abs >= 1e-3 && abs < 1e7) {
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** Java's String.trim: removes every character up to U+0020 at both ends. */
export function javaTrim(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

/**
 * Java's `a.equals(b)` on our types: type-strict (a Long never equals a Double), structural on Lists
 * and Maps, by instant on dates, by identity on execution and task.
 */
export function javaEquals(a: JuelValue, b: JuelValue): boolean {
  if (a === null || b === null) return a === b;
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  // A fresh wrapper is made at each resolution: the host's object is the identity.
  if (a instanceof ExecutionObject && b instanceof ExecutionObject) return a.execution === b.execution;
  if (a instanceof TaskObject && b instanceof TaskObject) return a.task === b.task;
  if (a instanceof JuelDateTime && b instanceof JuelDateTime) return a.millis === b.millis;
  if (isList(a) && isList(b)) {
    return a.length === b.length && a.every((item, i) => javaEquals(fromJson(item), fromJson(b[i])));
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => {
      const other = mapEntry(b, key);
      return other !== undefined && javaEquals(fromJson(a[key]), fromJson(other));
    });
  }
  // Double.equals: NaN equals NaN, 0.0 does not equal -0.0.
  if (typeof a === 'number') return Object.is(a, b);
  return a === b;
}

/** The EL error for a coercion the specification refuses. */
export function cannotCoerce(value: JuelValue, target: string): JuelError {
  return new JuelError(`Cannot coerce ${describe(value)} to ${target}`);
}

/** A value in an error message: its type and, for short scalars, the value itself. */
export function describe(value: JuelValue): string {
  const type = typeName(value);
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `'${shown}' (String)`;
  }
  if (typeof value === 'boolean' || typeof value === 'bigint' || typeof value === 'number') {
    return `${toText(value)} (${type})`;
  }
  return `a ${type}`;
}
