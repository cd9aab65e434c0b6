/** A Rhai `char`: one Unicode scalar value, kept distinct from one-character strings. */
export class RhaiChar {
  constructor(readonly value: string) {}
}

/** A Rhai `FLOAT` (f64), boxed so that `2.0` stays distinct from the integer `2`. */
export class RhaiFloat {
  constructor(readonly value: number) {}
}

/** A Rhai `timestamp` (milliseconds from a monotonic clock). */
export class RhaiTimestamp {
  constructor(readonly ms: number) {}
}

/** A Rhai `BLOB`: a byte array. */
export class RhaiBlob {
  constructor(public bytes: Uint8Array) {}
}

/** A Rhai range `a..b` / `a..=b` (also the iterator of `range(a, b, step)`). */
export class RhaiRange {
  constructor(
    readonly from: number | bigint,
    readonly to: number | bigint,
    readonly inclusive: boolean,
    readonly step: number | bigint = 1,
  ) {}
}

/** A float range from `range(a, b, step)` with FLOAT arguments. */
export class RhaiFloatRange {
  constructor(
    readonly from: number,
    readonly to: number,
    readonly step: number,
  ) {}
}

/** A variable shared with a closure; lives only in variable slots, never as a value. */
export class SharedCell {
  constructor(public value: RhaiValue) {}
}

/** A function pointer: a named script/native function or a closure, with curried arguments. */
export class FunctionPointer {
  constructor(
    readonly name: string,
    readonly curried: readonly RhaiValue[] = [],
    readonly closure?: ClosureValue,
  ) {}

  withCurried(args: readonly RhaiValue[]): FunctionPointer {
    return new FunctionPointer(this.name, [...this.curried, ...args], this.closure);
  }
}

/** The run-time part of a closure: its compiled body and the cells it captured. */
export interface ClosureValue {
  readonly params: number;
  readonly cells: readonly SharedCell[];
  readonly invoke: (thisRef: ThisReference | undefined, args: RhaiValue[]) => RhaiValue;
}

/** A mutable `this` binding for method-style calls; `set` writes back to the caller's place. */
export interface ThisReference {
  value: RhaiValue;
}

/** Rhai object map. A `Map` keeps `__proto__` and `constructor` as ordinary keys. */
export type RhaiMap = Map<string, RhaiValue>;

/**
 * Any Rhai value. INT is a JS `number` holding a safe integer, or a `bigint` outside ±2^53 (always
 * within i64); unit is `undefined`.
 */
export type RhaiValue =
  | undefined
  | boolean
  | number
  | bigint
  | string
  | RhaiChar
  | RhaiFloat
  | RhaiValue[]
  | RhaiMap
  | FunctionPointer
  | RhaiTimestamp
  | RhaiBlob
  | RhaiRange
  | RhaiFloatRange;

/** Rhai's `type_of` name of a value. */
export function typeOf(v: RhaiValue): string {
  switch (typeof v) {
    case 'undefined':
      return '()';
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return 'i64';
    case 'string':
      return 'string';
  }
  if (v instanceof RhaiFloat) return 'f64';
  if (v instanceof RhaiChar) return 'char';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'map';
  if (v instanceof FunctionPointer) return 'Fn';
  if (v instanceof RhaiTimestamp) return 'timestamp';
  if (v instanceof RhaiRange) return v.inclusive ? 'range=' : 'range';
  if (v instanceof RhaiFloatRange) return 'range';
  return 'blob';
}

/** Copies arrays, maps and blobs deeply (Rhai values are copied on assignment). */
export function deepClone(v: RhaiValue): RhaiValue {
  if (Array.isArray(v)) return v.map(deepClone);
  if (v instanceof Map) {
    const m: RhaiMap = new Map();
    for (const [k, x] of v) m.set(k, deepClone(x));
    return m;
  }
  if (v instanceof RhaiBlob) return new RhaiBlob(v.bytes.slice());
  return v;
}

/** Copies a value only when it is a container (cheap check first). */
export function ownedValue(v: RhaiValue): RhaiValue {
  return typeof v === 'object' && (Array.isArray(v) || v instanceof Map || v instanceof RhaiBlob)
    ? deepClone(v)
    : v;
}

/** Number of Unicode characters in a string. */
export function charLength(s: string): number {
  if (!hasSurrogates(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** True when a string has characters outside the BMP (so UTF-16 indices are not char indices). */
export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

/** The characters of a string. */
export function chars(s: string): string[] {
  return hasSurrogates(s) ? Array.from(s) : s.split('');
}

/** Formats a float the way Rhai's `to_string` does (always with a decimal point or exponent). */
export function floatToString(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? 'inf' : '-inf';
  if (Number.isInteger(f) && Math.abs(f) < 1e16) return f.toFixed(1);
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [m, e] = f.toExponential().split('e');
    return `${m}e${Number(e)}`;
  }
  return String(f);
}

/** Rhai's `to_string` / string interpolation text of a value. */
export function toDisplay(v: RhaiValue): string {
  switch (typeof v) {
    case 'undefined':
      return '';
    case 'boolean':
    case 'number':
    case 'bigint':
      return String(v);
    case 'string':
      return v;
  }
  if (v instanceof RhaiChar) return v.value;
  if (v instanceof RhaiFloat) return floatToString(v.value);
  return toDebug(v);
}

/** Rhai's `to_debug` text (strings quoted, containers in literal syntax). */
export function toDebug(v: RhaiValue): string {
  switch (typeof v) {
    case 'undefined':
      return '()';
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
    case 'number':
    case 'bigint':
      return String(v);
  }
  if (v instanceof RhaiChar) return `'${v.value}'`;
  if (v instanceof RhaiFloat) return floatToString(v.value);
  if (Array.isArray(v)) return `[${v.map(toDebug).join(', ')}]`;
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${JSON.stringify(k)}: ${toDebug(x)}`);
    return `#{${parts.join(', ')}}`;
  }
  if (v instanceof FunctionPointer) return v.closure ? 'Fn(<closure>)' : `Fn(${v.name})`;
  if (v instanceof RhaiTimestamp) return '<timestamp>';
  if (v instanceof RhaiRange) return `${v.from}..${v.inclusive ? '=' : ''}${v.to}`;
  if (v instanceof RhaiFloatRange) return `${v.from}..${v.to}`;
  // Rhai groups a BLOB's hex digits eight bytes at a time.
  const hex = Array.from(
    v.bytes,
    (b, i) => (i > 0 && i % 8 === 0 ? ' ' : '') + b.toString(16).padStart(2, '0'),
  );
  return `[${hex.join('')}]`;
}

/**
 * A comparison of two floats (or an INT and a float) as Rhai makes it: the difference relative to the
 * larger magnitude (absolute when either is zero) within f64's epsilon counts as equal, so
 * `0.1 + 0.2 == 0.3` and `0 < 1e-16` is false; NaN and infinities compare false.
 */
export function floatRelation(op: string, x: number, y: number): boolean {
  const max = x * y === 0 ? 1 : Math.max(Math.abs(x), Math.abs(y));
  const d = (x - y) / max;
  switch (op) {
    case '==':
      return Math.abs(d) <= Number.EPSILON;
    case '!=':
      return Math.abs(d) > Number.EPSILON;
    case '<':
      return -d > Number.EPSILON;
    case '<=':
      return -d > -Number.EPSILON;
    case '>':
      return d > Number.EPSILON;
    default:
      return d > -Number.EPSILON;
  }
}

/** Structural equality as Rhai's `==` (INT and FLOAT compare numerically; char equals 1-char string). */
export function valuesEqual(a: RhaiValue, b: RhaiValue): boolean {
  const ta = typeof a;
  const tb = typeof b;
  if (a instanceof RhaiFloat) {
    if (b instanceof RhaiFloat) return floatRelation('==', a.value, b.value);
    if (tb === 'number' || tb === 'bigint') return floatRelation('==', a.value, Number(b));
    return false;
  }
  if (b instanceof RhaiFloat)
    return (ta === 'number' || ta === 'bigint') && floatRelation('==', Number(a), b.value);
  if (a === b) return true;
  if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) return false;
  if (a instanceof RhaiChar)
    return (b instanceof RhaiChar && a.value === b.value) || (tb === 'string' && a.value === b);
  if (b instanceof RhaiChar) return ta === 'string' && a === b.value;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !valuesEqual(x, b.get(k))) return false;
    return true;
  }
  if (a instanceof FunctionPointer)
    return b instanceof FunctionPointer && a.name === b.name && !a.closure && !b.closure;
  if (a instanceof RhaiBlob) {
    return (
      b instanceof RhaiBlob && a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i])
    );
  }
  if (a instanceof RhaiTimestamp) return b instanceof RhaiTimestamp && a.ms === b.ms;
  if (a instanceof RhaiRange) {
    return (
      b instanceof RhaiRange &&
      a.from === b.from &&
      a.to === b.to &&
      a.inclusive === b.inclusive &&
      a.step === b.step
    );
  }
  return false;
}
