import { RhaiError } from './errors.js';

/** Checked 64-bit integer arithmetic over the hybrid number/bigint INT representation. */

const MIN = -(1n << 63n);
const MAX = (1n << 63n) - 1n;

/** Thrown for overflow, division by zero and friends; positions are added by the caller. */
export function arithmeticError(message: string): RhaiError {
  return new RhaiError('ErrorArithmetic', message);
}

/** Converts a bigint result into the canonical INT form, failing on i64 overflow. */
export function fromBigInt(b: bigint, what = 'Arithmetic overflow'): number | bigint {
  if (b < MIN || b > MAX) throw arithmeticError(what);
  const n = Number(b);
  return Number.isSafeInteger(n) ? n : b;
}

/** The INT as a bigint. */
export function toBigInt(a: number | bigint): bigint {
  return typeof a === 'bigint' ? a : BigInt(a);
}

/** Checked `+`. */
export function addInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return fromBigInt(toBigInt(a) + toBigInt(b), `Addition overflow: ${a} + ${b}`);
}

/** Checked `-`. */
export function subInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return fromBigInt(toBigInt(a) - toBigInt(b), `Subtraction overflow: ${a} - ${b}`);
}

/** Checked `*`. */
export function mulInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  return fromBigInt(toBigInt(a) * toBigInt(b), `Multiplication overflow: ${a} * ${b}`);
}

/** Checked `/`, truncating toward zero. */
export function divInt(a: number | bigint, b: number | bigint): number | bigint {
  if (b === 0 || b === 0n) throw arithmeticError(`Division by zero: ${a} / ${b}`);
  if (typeof a === 'number' && typeof b === 'number') {
    const r = (a - (a % b)) / b;
    return r === 0 ? 0 : r;
  }
  return fromBigInt(toBigInt(a) / toBigInt(b), `Division overflow: ${a} / ${b}`);
}

/** Checked `%` (sign of the dividend, as Rust). */
export function modInt(a: number | bigint, b: number | bigint): number | bigint {
  if (b === 0 || b === 0n) throw arithmeticError(`Modulo division by zero: ${a} % ${b}`);
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a % b;
    return r === 0 ? 0 : r;
  }
  return fromBigInt(toBigInt(a) % toBigInt(b));
}

/** Checked `**`; a negative exponent is an error, as in Rhai. */
export function powInt(a: number | bigint, b: number | bigint): number | bigint {
  const e = toBigInt(b);
  if (e < 0n) throw arithmeticError(`Integer raised to a negative power: ${a} ** ${b}`);
  const base = toBigInt(a);
  if (e > 64n && base !== 0n && base !== 1n && base !== -1n)
    throw arithmeticError(`Exponential overflow: ${a} ** ${b}`);
  return fromBigInt(base ** e, `Exponential overflow: ${a} ** ${b}`);
}

/** Checked negation. */
export function negInt(a: number | bigint): number | bigint {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  return fromBigInt(-a, `Negation overflow: -${a}`);
}

/** `<<`; a negative shift shifts the other way; bits shifted past 64 are lost. */
export function shlInt(a: number | bigint, b: number | bigint): number | bigint {
  const s = Number(b);
  if (s < 0) return shrInt(a, -s);
  if (s >= 64) throw arithmeticError(`Left-shift by too many bits: ${a} << ${b}`);
  return fromBigInt(BigInt.asIntN(64, toBigInt(a) << BigInt(s)));
}

/** Arithmetic `>>`; a negative shift shifts the other way. */
export function shrInt(a: number | bigint, b: number | bigint): number | bigint {
  const s = Number(b);
  if (s < 0) return shlInt(a, -s);
  if (s >= 64) throw arithmeticError(`Right-shift by too many bits: ${a} >> ${b}`);
  return fromBigInt(toBigInt(a) >> BigInt(s));
}

/** Bitwise `&`, `|`, `^`. */
export function bitInt(op: '&' | '|' | '^', a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) {
    return op === '&' ? a & b : op === '|' ? a | b : a ^ b;
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  return fromBigInt(BigInt.asIntN(64, op === '&' ? x & y : op === '|' ? x | y : x ^ y));
}
