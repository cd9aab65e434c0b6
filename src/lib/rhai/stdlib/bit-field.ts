// Rhai's bit-field functions on INTs (book: "Integer as Bit-Fields"): bit 0 is the least
// significant; a negative bit position counts from the most significant end (-1 is bit 63).
import { RhaiError } from '../errors.js';
import { fromBigInt } from '../int-math.js';
import { bitRange } from '../indexing.js';
import type { RhaiValue } from '../values.js';
import { RhaiRange } from '../values.js';
import { clampedIntArgument, intArgument, noOverload } from './args.js';
import { defineFunctionFor } from './registry.js';

const BITS = 64;
const I = 'i64';
const unsigned = (a: RhaiValue[], name: string): bigint =>
  BigInt.asUintN(BITS, BigInt(intArgument(name, a, 0)));
const outOfBounds = (p: number): RhaiError =>
  new RhaiError('ErrorBitFieldBounds', `Bit-field index ${p} out of bounds`);

/** Rhai's `calc_index` over the 64 bits: a negative position counts from the end; outside is an error. */
function bitIndex(p: number): number {
  const i = p < 0 ? BITS + p : p;
  if (i < 0 || i >= BITS) throw outOfBounds(p);
  return i;
}

/**
 * The first bit and the number of bits of `(start, bits)` or `(range)` arguments at `args[1]`, or
 * undefined when no bit is selected (a non-positive count is no bits, before any bounds check).
 */
function bitSpan(name: string, a: RhaiValue[]): [number, number] | undefined {
  let start: number;
  let count: number;
  const r = a[1];
  if (r instanceof RhaiRange) {
    start = Math.max(0, Number(r.from));
    const end = Number(r.to);
    if (r.inclusive && end >= BITS) throw outOfBounds(end);
    count = Math.max(end + (r.inclusive ? 1 : 0), start) - start;
  } else {
    start = clampedIntArgument(name, a, 1);
    count = clampedIntArgument(name, a, 2);
  }
  if (count <= 0) return undefined;
  const s = bitIndex(start);
  return [s, Math.min(count, BITS - s)];
}

defineFunctionFor(I, 'bits', 1, 3, (_c, a) => {
  const u = unsigned(a, 'bits');
  let s = 0;
  let e = BITS;
  if (a[1] instanceof RhaiRange) [s, e] = bitRange(a[1]);
  else if (a.length > 1) {
    const p = clampedIntArgument('bits', a, 1);
    s = p < 0 ? Math.max(0, BITS + p) : Math.min(p, BITS);
    e = a.length > 2 ? Math.min(BITS, s + Math.max(0, clampedIntArgument('bits', a, 2))) : BITS;
  }
  const out: RhaiValue[] = [];
  for (let i = s; i < e; i++) out.push(((u >> BigInt(i)) & 1n) === 1n);
  return out;
});
defineFunctionFor(I, 'get_bit', 2, 2, (_c, a) => {
  const i = bitIndex(clampedIntArgument('get_bit', a, 1));
  return ((unsigned(a, 'get_bit') >> BigInt(i)) & 1n) === 1n;
});
defineFunctionFor(I, 'set_bit', 3, 3, (_c, a) => {
  const i = bitIndex(clampedIntArgument('set_bit', a, 1));
  if (typeof a[2] !== 'boolean') throw noOverload('set_bit', a);
  const mask = 1n << BigInt(i);
  const u = unsigned(a, 'set_bit');
  a[0] = fromBigInt(BigInt.asIntN(BITS, a[2] ? u | mask : u & ~mask));
  return undefined;
});
defineFunctionFor(I, 'get_bits', 2, 3, (_c, a) => {
  const span = bitSpan('get_bits', a);
  if (!span) return 0;
  const [s, n] = span;
  return fromBigInt(BigInt.asIntN(BITS, (unsigned(a, 'get_bits') >> BigInt(s)) & ((1n << BigInt(n)) - 1n)));
});
defineFunctionFor(I, 'set_bits', 3, 4, (_c, a) => {
  const span = bitSpan('set_bits', a);
  if (!span) return undefined;
  const [s, n] = span;
  const mask = ((1n << BigInt(n)) - 1n) << BigInt(s);
  const v = (BigInt(intArgument('set_bits', a, a[1] instanceof RhaiRange ? 2 : 3)) << BigInt(s)) & mask;
  a[0] = fromBigInt(BigInt.asIntN(BITS, (unsigned(a, 'set_bits') & ~mask) | v));
  return undefined;
});
