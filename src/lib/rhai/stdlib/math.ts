import { RhaiError } from '../errors.js';
import { fromBigInt, negInt } from '../int-math.js';
import { compare } from '../operators.js';
import type { RhaiValue } from '../values.js';
import { RhaiChar, RhaiFloat } from '../values.js';
import { intArgument, noOverload, numberArgument, stringArgument } from './args.js';
import { defineFunction } from './registry.js';

const isIntV = (v: RhaiValue): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

function floatFn(name: string, f: (x: number) => number): void {
  defineFunction(name, 1, 1, (_c, a) => new RhaiFloat(f(numberArgument(name, a, 0))));
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
defineFunction(
  'log',
  1,
  2,
  (_c, a) =>
    new RhaiFloat(
      a.length === 2
        ? Math.log(numberArgument('log', a, 0)) / Math.log(numberArgument('log', a, 1))
        : Math.log10(numberArgument('log', a, 0)),
    ),
);
defineFunction(
  'atan',
  1,
  2,
  (_c, a) =>
    new RhaiFloat(
      a.length === 2
        ? Math.atan2(numberArgument('atan', a, 0), numberArgument('atan', a, 1))
        : Math.atan(numberArgument('atan', a, 0)),
    ),
);
defineFunction('PI', 0, 0, () => new RhaiFloat(Math.PI));
defineFunction('E', 0, 0, () => new RhaiFloat(Math.E));

function roundFn(name: string, f: (x: number) => number): void {
  defineFunction(name, 1, 1, (_c, a) => {
    const v = a[0];
    if (v instanceof RhaiFloat) return new RhaiFloat(f(v.value));
    throw noOverload(name, a);
  });
}
roundFn('floor', Math.floor);
roundFn('ceiling', Math.ceil);
roundFn('round', (x) => (x < 0 ? -Math.round(-x) : Math.round(x)));
roundFn('int', Math.trunc);
roundFn('fraction', (x) => x - Math.trunc(x));

defineFunction('abs', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v < 0 ? negInt(v) : v;
  if (v instanceof RhaiFloat) return new RhaiFloat(Math.abs(v.value));
  throw noOverload('abs', a);
});
defineFunction('sign', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v > 0 ? 1 : v < 0 ? -1 : 0;
  if (v instanceof RhaiFloat) return v.value > 0 ? 1 : v.value < 0 ? -1 : 0;
  throw noOverload('sign', a);
});
defineFunction('is_zero', 1, 1, (_c, a) => numberArgument('is_zero', a, 0) === 0);
defineFunction('is_even', 1, 1, (_c, a) => {
  const v = intArgument('is_even', a, 0);
  return typeof v === 'bigint' ? v % 2n === 0n : v % 2 === 0;
});
defineFunction('is_odd', 1, 1, (_c, a) => {
  const v = intArgument('is_odd', a, 0);
  return typeof v === 'bigint' ? v % 2n !== 0n : v % 2 !== 0;
});
defineFunction('is_nan', 1, 1, (_c, a) => Number.isNaN(numberArgument('is_nan', a, 0)));
defineFunction('is_finite', 1, 1, (_c, a) => Number.isFinite(numberArgument('is_finite', a, 0)));
defineFunction('is_infinite', 1, 1, (_c, a) => {
  const x = numberArgument('is_infinite', a, 0);
  return !Number.isFinite(x) && !Number.isNaN(x);
});
defineFunction('to_float', 1, 1, (_c, a) => new RhaiFloat(numberArgument('to_float', a, 0)));
defineFunction('to_int', 1, 1, (_c, a) => {
  const v = a[0];
  if (isIntV(v)) return v;
  if (v instanceof RhaiChar) return v.value.codePointAt(0) ?? 0;
  if (v instanceof RhaiFloat) {
    if (!Number.isFinite(v.value) || Math.abs(v.value) >= 2 ** 63)
      throw new RhaiError('ErrorArithmetic', `Integer overflow: to_int(${v.value})`);
    const t = Math.trunc(v.value);
    return Number.isSafeInteger(t) ? t : fromBigInt(BigInt(t));
  }
  throw noOverload('to_int', a);
});
defineFunction('parse_int', 1, 2, (_c, a) => {
  const s = stringArgument('parse_int', a, 0).trim();
  const radix = a.length > 1 ? Number(intArgument('parse_int', a, 1)) : 10;
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
  return fromBigInt(m[1] === '-' ? -n : n, `Error parsing integer number '${s}': number too large`);
});
defineFunction('parse_float', 1, 1, (_c, a) => {
  const s = stringArgument('parse_float', a, 0).trim();
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|NaN)$/i.test(s)) {
    throw new RhaiError(
      'ErrorArithmetic',
      `Error parsing floating-point number '${s}': invalid float literal`,
    );
  }
  const lower = s.toLowerCase().replace(/^[+-]/, '');
  const sign = s.startsWith('-') ? -1 : 1;
  if (lower === 'inf' || lower === 'infinity') return new RhaiFloat(sign * Infinity);
  return new RhaiFloat(lower === 'nan' ? NaN : Number(s));
});
defineFunction('max', 2, 2, (_c, a) => (compare('>=', a[0], a[1]) ? a[0] : a[1]));
defineFunction('min', 2, 2, (_c, a) => (compare('<=', a[0], a[1]) ? a[0] : a[1]));

function radixFn(name: string, radix: number): void {
  defineFunction(name, 1, 1, (_c, a) => BigInt.asUintN(64, BigInt(intArgument(name, a, 0))).toString(radix));
}
radixFn('to_binary', 2);
radixFn('to_octal', 8);
radixFn('to_hex', 16);
