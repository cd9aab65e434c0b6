import { RhaiError } from '../errors.js';
import { fromBig, negInt } from '../int-math.js';
import { compare } from '../operators.js';
import type { RValue } from '../values.js';
import { RChar, RFloat } from '../values.js';
import { int, noOverload, numArg, str } from './args.js';
import { def } from './registry.js';

const isIntV = (v: RValue): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

function floatFn(name: string, f: (x: number) => number): void {
  def(name, 1, 1, (_c, a) => new RFloat(f(numArg(name, a, 0))));
}

floatFn('sin', Math.sin);
floatFn('cos', Math.cos);
floatFn('tan', Math.tan);
floatFn('asin', Math.asin);
floatFn('acos', Math.acos);
floatFn('atan', Math.atan);
floatFn('sinh', Math.sinh);
floatFn('cosh', Math.cosh);
floatFn('tanh', Math.tanh);
floatFn('asinh', Math.asinh);
floatFn('acosh', Math.acosh);
floatFn('atanh', Math.atanh);
floatFn('sqrt', Math.sqrt);
floatFn('exp', Math.exp);
floatFn('ln', Math.log);
floatFn('log10', Math.log10);
floatFn('to_degrees', (x) => (x * 180) / Math.PI);
floatFn('to_radians', (x) => (x * Math.PI) / 180);
floatFn('hypot', Math.hypot);
def(
  'log',
  1,
  2,
  (_c, a) =>
    new RFloat(
      a.length === 2
        ? Math.log(numArg('log', a, 0)) / Math.log(numArg('log', a, 1))
        : Math.log10(numArg('log', a, 0)),
    ),
);
def(
  'atan',
  1,
  2,
  (_c, a) =>
    new RFloat(
      a.length === 2
        ? Math.atan2(numArg('atan', a, 0), numArg('atan', a, 1))
        : Math.atan(numArg('atan', a, 0)),
    ),
);
def('PI', 0, 0, () => new RFloat(Math.PI));
def('E', 0, 0, () => new RFloat(Math.E));

function roundFn(name: string, f: (x: number) => number): void {
  def(name, 1, 1, (_c, a) => {
    const v = a[0];
    if (v instanceof RFloat) return new RFloat(f(v.v));
    throw noOverload(name, a);
  });
}
roundFn('floor', Math.floor);
roundFn('ceiling', Math.ceil);
roundFn('round', (x) => (x < 0 ? -Math.round(-x) : Math.round(x)));
roundFn('int', Math.trunc);
roundFn('fraction', (x) => x - Math.trunc(x));

def('abs', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v < 0 ? negInt(v) : v;
  if (v instanceof RFloat) return new RFloat(Math.abs(v.v));
  throw noOverload('abs', a);
});
def('sign', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v > 0 ? 1 : v < 0 ? -1 : 0;
  if (v instanceof RFloat) return v.v > 0 ? 1 : v.v < 0 ? -1 : 0;
  throw noOverload('sign', a);
});
def('is_zero', 1, 1, (_c, a) => numArg('is_zero', a, 0) === 0);
def('is_even', 1, 1, (_c, a) => {
  const v = int('is_even', a, 0);
  return typeof v === 'bigint' ? v % 2n === 0n : v % 2 === 0;
});
def('is_odd', 1, 1, (_c, a) => {
  const v = int('is_odd', a, 0);
  return typeof v === 'bigint' ? v % 2n !== 0n : v % 2 !== 0;
});
def('is_nan', 1, 1, (_c, a) => Number.isNaN(numArg('is_nan', a, 0)));
def('is_finite', 1, 1, (_c, a) => Number.isFinite(numArg('is_finite', a, 0)));
def('is_infinite', 1, 1, (_c, a) => {
  const x = numArg('is_infinite', a, 0);
  return !Number.isFinite(x) && !Number.isNaN(x);
});
def('to_float', 1, 1, (_c, a) => new RFloat(numArg('to_float', a, 0)));
def('to_int', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v;
  if (v instanceof RChar) return v.c.codePointAt(0) ?? 0;
  if (v instanceof RFloat) {
    if (!Number.isFinite(v.v) || Math.abs(v.v) >= 2 ** 63)
      throw new RhaiError('ErrorArithmetic', `Integer overflow: to_int(${v.v})`);
    const t = Math.trunc(v.v);
    return Number.isSafeInteger(t) ? t : fromBig(BigInt(t));
  }
  throw noOverload('to_int', a);
});
def('parse_int', 1, 2, (_c, a) => {
  const s = str('parse_int', a, 0).trim();
  const radix = a.length > 1 ? Number(int('parse_int', a, 1)) : 10;
  if (radix < 2 || radix > 36) throw new RhaiError('ErrorArithmetic', `Invalid radix: ${radix}`);
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
  const m = /^([+-]?)(\w+)$/.exec(s);
  if (!m || [...m[2]!.toLowerCase()].some((ch) => !digits.includes(ch))) {
    throw new RhaiError(
      'ErrorArithmetic',
      `Error parsing integer number '${s}': invalid digit found in string`,
    );
  }
  let n = 0n;
  for (const ch of m[2]!.toLowerCase()) n = n * BigInt(radix) + BigInt(digits.indexOf(ch));
  return fromBig(m[1] === '-' ? -n : n, `Error parsing integer number '${s}': number too large`);
});
def('parse_float', 1, 1, (_c, a) => {
  const s = str('parse_float', a, 0).trim();
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|NaN)$/i.test(s)) {
    throw new RhaiError(
      'ErrorArithmetic',
      `Error parsing floating-point number '${s}': invalid float literal`,
    );
  }
  const lower = s.toLowerCase().replace(/^[+-]/, '');
  const sign = s.startsWith('-') ? -1 : 1;
  if (lower === 'inf' || lower === 'infinity') return new RFloat(sign * Infinity);
  return new RFloat(lower === 'nan' ? NaN : Number(s));
});
def('max', 2, 2, (_c, a) => (compare('>=', a[0], a[1]) ? a[0] : a[1]));
def('min', 2, 2, (_c, a) => (compare('<=', a[0], a[1]) ? a[0] : a[1]));

function radixFn(name: string, radix: number): void {
  def(name, 1, 1, (_c, a) => BigInt.asUintN(64, BigInt(int(name, a, 0))).toString(radix));
}
radixFn('to_binary', 2);
radixFn('to_octal', 8);
radixFn('to_hex', 16);
