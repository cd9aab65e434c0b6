import { RhaiError } from './errors.js';
import {
  addInt,
  bitInt,
  divInt,
  modInt,
  mulInt,
  negInt,
  powInt,
  shlInt,
  shrInt,
  subInt,
} from './int-math.js';
import type { EvaluationContext } from './evaluation-context.js';
import { checkSize, checkString } from './runtime.js';
import type { RhaiMap, RhaiValue } from './values.js';
import {
  FunctionPointer,
  ownedValue,
  RhaiBlob,
  RhaiChar,
  RhaiFloat,
  RhaiFloatRange,
  RhaiRange,
  RhaiTimestamp,
  floatRelation,
  toDisplay,
  typeOf,
  valuesEqual,
} from './values.js';

/** Error for an operator applied to types it does not support (Rhai: function not found). */
export function noOperator(op: string, a: RhaiValue, ...b: RhaiValue[]): RhaiError {
  const types = [a, ...b].map(typeOf).join(', ');
  return new RhaiError('ErrorFunctionNotFound', `Function not found: ${op} (${types})`);
}

const num = (v: RhaiValue): number | undefined =>
  typeof v === 'number'
    ? v
    : v instanceof RhaiFloat
      ? v.value
      : typeof v === 'bigint'
        ? Number(v)
        : undefined;

function floatOp(op: string, x: number, y: number): RhaiValue {
  switch (op) {
    case '+':
      return new RhaiFloat(x + y);
    case '-':
      return new RhaiFloat(x - y);
    case '*':
      return new RhaiFloat(x * y);
    case '/':
      return new RhaiFloat(x / y);
    case '%':
      return new RhaiFloat(x % y);
    case '**':
      return new RhaiFloat(x ** y);
  }
  return undefined;
}

function intOp(op: string, a: number | bigint, b: number | bigint): RhaiValue {
  switch (op) {
    case '+':
      return addInt(a, b);
    case '-':
      return subInt(a, b);
    case '*':
      return mulInt(a, b);
    case '/':
      return divInt(a, b);
    case '%':
      return modInt(a, b);
    case '**':
      return powInt(a, b);
    case '<<':
      return shlInt(a, b);
    case '>>':
      return shrInt(a, b);
    case '&':
    case '|':
    case '^':
      return bitInt(op, a, b);
  }
  return undefined;
}

/** Arithmetic, bitwise, string and container operators (not comparisons, not short-circuit ones). */
export function binaryOperation(
  context: EvaluationContext,
  op: string,
  a: RhaiValue,
  b: RhaiValue,
): RhaiValue {
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' && tb === 'number') {
    if (op === '+') {
      const r = (a as number) + (b as number);
      if (Number.isSafeInteger(r)) return r;
    }
    return intOp(op, a as number, b as number);
  }
  if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) {
    return intOp(op, a as number | bigint, b as number | bigint);
  }
  if (ta === 'string' || tb === 'string') return stringOp(context, op, a, b);
  if (a instanceof RhaiFloat || b instanceof RhaiFloat) {
    const x = num(a);
    const y = num(b);
    if (x !== undefined && y !== undefined) {
      if (op === '**' && b instanceof RhaiFloat === false && a instanceof RhaiFloat)
        return new RhaiFloat(x ** y);
      const r = floatOp(op, x, y);
      if (r !== undefined) return r;
    }
    if (a instanceof RhaiTimestamp || b instanceof RhaiTimestamp) return timeOp(op, a, b);
    throw noOperator(op, a, b);
  }
  if (ta === 'boolean' && tb === 'boolean') {
    if (op === '&') return a === true && b === true;
    if (op === '|') return a === true || b === true;
    if (op === '^') return a !== b;
    throw noOperator(op, a, b);
  }
  if (a instanceof RhaiChar) {
    if (op === '+' && b instanceof RhaiChar) return checkString(context, a.value + b.value);
    throw noOperator(op, a, b);
  }
  if (Array.isArray(a) && Array.isArray(b) && op === '+') {
    const r = a.concat(b.map(ownedValue));
    checkSize(context, r);
    return r;
  }
  if (a instanceof Map && b instanceof Map && op === '+') {
    const r: RhaiMap = new Map(a);
    for (const [k, v] of b) r.set(k, ownedValue(v));
    checkSize(context, r);
    return r;
  }
  if (a instanceof RhaiBlob && (b instanceof RhaiBlob || b instanceof RhaiChar) && op === '+') {
    const more = blobAppendix(b)!;
    const r = new Uint8Array(a.bytes.length + more.length);
    r.set(a.bytes);
    r.set(more, a.bytes.length);
    const blob = new RhaiBlob(r);
    checkSize(context, blob);
    return blob;
  }
  if (a instanceof RhaiTimestamp) return timeOp(op, a, b);
  throw noOperator(op, a, b);
}

function timeOp(op: string, a: RhaiValue, b: RhaiValue): RhaiValue {
  if (a instanceof RhaiTimestamp && b instanceof RhaiTimestamp && op === '-')
    return new RhaiFloat((a.ms - b.ms) / 1000);
  const secs = num(b);
  if (a instanceof RhaiTimestamp && secs !== undefined) {
    if (op === '+') return new RhaiTimestamp(a.ms + secs * 1000);
    if (op === '-') return new RhaiTimestamp(a.ms - secs * 1000);
  }
  throw noOperator(op, a, b);
}

function stringOp(context: EvaluationContext, op: string, a: RhaiValue, b: RhaiValue): RhaiValue {
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') return checkString(context, a + b);
    if (Array.isArray(a) || a instanceof Map || Array.isArray(b) || b instanceof Map)
      throw noOperator(op, a, b);
    return checkString(context, toDisplay(a) + toDisplay(b));
  }
  if (op === '-' && typeof a === 'string') {
    if (typeof b === 'string') return b === '' ? a : a.split(b).join('');
    if (b instanceof RhaiChar) return a.split(b.value).join('');
  }
  throw noOperator(op, a, b);
}

const utf8 = new TextEncoder();

/** The bytes `blob + x` / `blob += x` appends: an INT's low byte, a char's or string's UTF-8, a BLOB. */
export function blobAppendix(x: RhaiValue): Uint8Array | undefined {
  if (typeof x === 'number' || typeof x === 'bigint')
    return Uint8Array.of(Number(BigInt.asUintN(8, BigInt(x))));
  if (x instanceof RhaiChar) return utf8.encode(x.value);
  if (typeof x === 'string') return utf8.encode(x);
  if (x instanceof RhaiBlob) return x.bytes;
  return undefined;
}

/** `==` and friends; values of different types are unequal and unordered (comparisons are false). */
export function compare(op: string, a: RhaiValue, b: RhaiValue): boolean {
  if (op === '==') return valuesEqual(a, b);
  if (op === '!=') return !valuesEqual(a, b);
  const ta = typeof a;
  const tb = typeof b;
  let cmp: number;
  if (ta === 'number' && tb === 'number') {
    cmp = (a as number) - (b as number);
  } else {
    const x = num(a);
    const y = num(b);
    if (x !== undefined && y !== undefined) {
      if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) {
        cmp = (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
      } else {
        return floatRelation(op, x, y);
      }
    } else {
      const s = strOf(a);
      const t = strOf(b);
      if (s !== undefined && t !== undefined) cmp = s < t ? -1 : s > t ? 1 : 0;
      else if (ta === 'boolean' && tb === 'boolean') cmp = Number(a) - Number(b);
      else if (a instanceof RhaiTimestamp && b instanceof RhaiTimestamp) cmp = a.ms - b.ms;
      else return false;
    }
  }
  if (Number.isNaN(cmp)) return false;
  switch (op) {
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    default:
      return cmp >= 0;
  }
}

const strOf = (v: RhaiValue): string | undefined =>
  typeof v === 'string' ? v : v instanceof RhaiChar ? v.value : undefined;

/** `a in b`: substring/char of a string, element of an array, key of a map, INT in a range. */
export function contains(a: RhaiValue, b: RhaiValue): boolean {
  if (typeof b === 'string') {
    const s = strOf(a);
    if (s === undefined) throw noOperator('in', a, b);
    return b.includes(s);
  }
  if (Array.isArray(b)) return b.some((x) => valuesEqual(x, a));
  if (b instanceof Map) {
    const k = strOf(a);
    if (k === undefined) throw noOperator('in', a, b);
    return b.has(k);
  }
  if (b instanceof RhaiRange && (typeof a === 'number' || typeof a === 'bigint')) {
    return a >= b.from && (b.inclusive ? a <= b.to : a < b.to);
  }
  if (b instanceof RhaiFloatRange) {
    const x = num(a);
    return x !== undefined && x >= b.from && x < b.to;
  }
  if (b instanceof RhaiBlob && typeof a === 'number') return b.bytes.includes(a);
  throw noOperator('in', a, b);
}

/** Unary `-`, `+` and `!`. */
export function unary(op: string, a: RhaiValue): RhaiValue {
  if (op === '!') {
    if (typeof a === 'boolean') return !a;
    throw noOperator('!', a);
  }
  if (typeof a === 'number' || typeof a === 'bigint') return op === '-' ? negInt(a) : a;
  if (a instanceof RhaiFloat) return op === '-' ? new RhaiFloat(-a.value) : a;
  throw noOperator(op, a);
}

/** A value as a function pointer, or an error. */
export function asFunctionPointer(v: RhaiValue): FunctionPointer {
  if (v instanceof FunctionPointer) return v;
  throw new RhaiError('ErrorMismatchDataType', `Expecting a function pointer, not ${typeOf(v)}`);
}
