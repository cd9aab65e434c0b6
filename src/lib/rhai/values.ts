/** A Rhai `char`: one Unicode scalar value, kept distinct from one-character strings. */
export class RChar {
  constructor(readonly c: string) {}
}

/** A Rhai `FLOAT` (f64), boxed so that `2.0` stays distinct from the integer `2`. */
export class RFloat {
  constructor(readonly v: number) {}
}

/** A Rhai `timestamp` (milliseconds from a monotonic clock). */
export class RTimestamp {
  constructor(readonly ms: number) {}
}

/** A Rhai `BLOB`: a byte array. */
export class RBlob {
  constructor(public bytes: Uint8Array) {}
}

/** A Rhai range `a..b` / `a..=b` (also the iterator of `range(a, b, step)`). */
export class RRange {
  constructor(
    readonly from: number | bigint,
    readonly to: number | bigint,
    readonly incl: boolean,
    readonly step: number | bigint = 1,
  ) {}
}

/** A float range from `range(a, b, step)` with FLOAT arguments. */
export class RFloatRange {
  constructor(
    readonly from: number,
    readonly to: number,
    readonly step: number,
  ) {}
}

/** A variable shared with a closure; lives only in variable slots, never as a value. */
export class SharedCell {
  constructor(public v: RValue) {}
}

/** A function pointer: a named script/native function or a closure, with curried arguments. */
export class FnPtr {
  constructor(
    readonly name: string,
    readonly curried: readonly RValue[] = [],
    readonly closure?: ClosureValue,
  ) {}

  withCurried(args: readonly RValue[]): FnPtr {
    return new FnPtr(this.name, [...this.curried, ...args], this.closure);
  }
}

/** The run-time part of a closure: its compiled body and the cells it captured. */
export interface ClosureValue {
  readonly params: number;
  readonly cells: readonly SharedCell[];
  readonly invoke: (thisRef: ThisRef | undefined, args: RValue[]) => RValue;
}

/** A mutable `this` binding for method-style calls; `set` writes back to the caller's place. */
export interface ThisRef {
  v: RValue;
}

/** Rhai object map. A `Map` keeps `__proto__` and `constructor` as ordinary keys. */
export type RMap = Map<string, RValue>;

/**
 * Any Rhai value. INT is a JS `number` holding a safe integer, or a `bigint` outside ±2^53 (always
 * within i64); unit is `undefined`.
 */
export type RValue =
  | undefined
  | boolean
  | number
  | bigint
  | string
  | RChar
  | RFloat
  | RValue[]
  | RMap
  | FnPtr
  | RTimestamp
  | RBlob
  | RRange
  | RFloatRange;

/** Rhai's `type_of` name of a value. */
export function typeOf(v: RValue): string {
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
  if (v instanceof RFloat) return 'f64';
  if (v instanceof RChar) return 'char';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'map';
  if (v instanceof FnPtr) return 'Fn';
  if (v instanceof RTimestamp) return 'timestamp';
  if (v instanceof RRange) return v.incl ? 'range=' : 'range';
  if (v instanceof RFloatRange) return 'range';
  return 'blob';
}

/** Copies arrays, maps and blobs deeply (Rhai values are copied on assignment). */
export function deepClone(v: RValue): RValue {
  if (Array.isArray(v)) return v.map(deepClone);
  if (v instanceof Map) {
    const m: RMap = new Map();
    for (const [k, x] of v) m.set(k, deepClone(x));
    return m;
  }
  if (v instanceof RBlob) return new RBlob(v.bytes.slice());
  return v;
}

/** Copies a value only when it is a container (cheap check first). */
export function own(v: RValue): RValue {
  return typeof v === 'object' && (Array.isArray(v) || v instanceof Map || v instanceof RBlob)
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
export function toDisplay(v: RValue): string {
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
  if (v instanceof RChar) return v.c;
  if (v instanceof RFloat) return floatToString(v.v);
  return toDebug(v);
}

/** Rhai's `to_debug` text (strings quoted, containers in literal syntax). */
export function toDebug(v: RValue): string {
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
  if (v instanceof RChar) return `'${v.c}'`;
  if (v instanceof RFloat) return floatToString(v.v);
  if (Array.isArray(v)) return `[${v.map(toDebug).join(', ')}]`;
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v)
      parts.push(`${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : JSON.stringify(k)}: ${toDebug(x)}`);
    return `#{${parts.join(', ')}}`;
  }
  if (v instanceof FnPtr) return v.closure ? 'Fn(<closure>)' : `Fn(${v.name})`;
  if (v instanceof RTimestamp) return '<timestamp>';
  if (v instanceof RRange) return `${v.from}..${v.incl ? '=' : ''}${v.to}`;
  if (v instanceof RFloatRange) return `${v.from}..${v.to}`;
  return `[${Array.from(v.bytes, (b) => b.toString(16).padStart(2, '0')).join('')}]`;
}

/** Structural equality as Rhai's `==` (INT and FLOAT compare numerically; char equals 1-char string). */
export function valuesEqual(a: RValue, b: RValue): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) return false;
  if (a instanceof RFloat) {
    if (b instanceof RFloat) return a.v === b.v;
    if (tb === 'number' || tb === 'bigint') return a.v === Number(b);
    return false;
  }
  if (b instanceof RFloat) return (ta === 'number' || ta === 'bigint') && Number(a) === b.v;
  if (a instanceof RChar) return (b instanceof RChar && a.c === b.c) || (tb === 'string' && a.c === b);
  if (b instanceof RChar) return ta === 'string' && a === b.c;
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
  if (a instanceof FnPtr) return b instanceof FnPtr && a.name === b.name && !a.closure && !b.closure;
  if (a instanceof RBlob) {
    return (
      b instanceof RBlob && a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i])
    );
  }
  if (a instanceof RTimestamp) return b instanceof RTimestamp && a.ms === b.ms;
  if (a instanceof RRange) {
    return (
      b instanceof RRange && a.from === b.from && a.to === b.to && a.incl === b.incl && a.step === b.step
    );
  }
  return false;
}
