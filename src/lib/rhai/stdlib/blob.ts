import { RhaiError } from '../errors.js';
import { fromBig } from '../int-math.js';
import { bitRange, rangeBounds } from '../indexing.js';
import type { RValue } from '../values.js';
import { RBlob, RRange } from '../values.js';
import { int, pos, str } from './args.js';
import { def, defFor } from './registry.js';

const B = 'blob';
const bytes = (a: RValue[]): Uint8Array => (a[0] as RBlob).bytes;

/** Start and end (exclusive) of `(start, len)` or `(range)` arguments over a blob. */
function window(name: string, a: RValue[], len: number): [number, number, number] {
  if (a[1] instanceof RRange) {
    const [s, e] = rangeBounds(a[1], len);
    return [s, e, 2];
  }
  const p = pos(name, a, 1);
  const s = p < 0 ? Math.max(0, len + p) : Math.min(p, len);
  const n = pos(name, a, 2);
  return [s, n <= 0 ? s : Math.min(len, s + n), 3];
}

def('blob', 0, 2, (c, a) => {
  const n = a.length > 0 ? Math.max(0, pos('blob', a, 0)) : 0;
  if (n > c.limits.maxArraySize)
    throw new RhaiError('ErrorDataTooLarge', 'Size of BLOB exceeds the maximum limit');
  const b = new Uint8Array(n);
  if (a.length > 1) b.fill(Number(BigInt.asUintN(8, BigInt(int('blob', a, 1)))));
  return new RBlob(b);
});
defFor(B, 'len', 1, 1, (_c, a) => bytes(a).length);
defFor(B, 'is_empty', 1, 1, (_c, a) => bytes(a).length === 0);
defFor(B, 'to_array', 1, 1, (_c, a) => Array.from(bytes(a)));

function parseInt(le: boolean) {
  const name = le ? 'parse_le_int' : 'parse_be_int';
  return (_c: unknown, a: RValue[]): RValue => {
    const b = bytes(a);
    const [s, e0] = window(name, a, b.length);
    const e = Math.min(e0, s + 8);
    const buf = new Uint8Array(8);
    for (let i = s; i < e; i++) buf[le ? i - s : i - s] = b[i]!;
    let v = 0n;
    if (le) for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(buf[i]!);
    else for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(buf[i]!);
    return fromBig(BigInt.asIntN(64, v));
  };
}
defFor(B, 'parse_le_int', 2, 3, parseInt(true));
defFor(B, 'parse_be_int', 2, 3, parseInt(false));

function writeInt(le: boolean) {
  const name = le ? 'write_le' : 'write_be';
  return (_c: unknown, a: RValue[]): RValue => {
    const b = bytes(a);
    const [s, e0, next] = window(name, a, b.length);
    const e = Math.min(e0, s + 8);
    const v = BigInt.asUintN(64, BigInt(int(name, a, next)));
    const buf: number[] = [];
    for (let i = 0; i < 8; i++) buf.push(Number((v >> BigInt(8 * i)) & 0xffn));
    if (!le) buf.reverse();
    for (let i = s; i < e; i++) b[i] = buf[i - s]!;
    return undefined;
  };
}
defFor(B, 'write_le', 3, 4, writeInt(true));
defFor(B, 'write_be', 3, 4, writeInt(false));
defFor(B, 'write_ascii', 3, 4, (_c, a) => {
  const b = bytes(a);
  const [s, e, next] = window('write_ascii', a, b.length);
  const text = [...str('write_ascii', a, next)].filter((ch) => ch.charCodeAt(0) < 128);
  for (let i = s; i < e && i - s < text.length; i++) b[i] = text[i - s]!.charCodeAt(0);
  return undefined;
});

defFor('i64', 'bits', 1, 3, (_c, a) => {
  const u = BigInt.asUintN(64, BigInt(int('bits', a, 0)));
  let s = 0;
  let e = 64;
  if (a[1] instanceof RRange) [s, e] = bitRange(a[1]);
  else if (a.length > 1) {
    const p = pos('bits', a, 1);
    s = p < 0 ? Math.max(0, 64 + p) : Math.min(p, 64);
    e = a.length > 2 ? Math.min(64, s + Math.max(0, pos('bits', a, 2))) : 64;
  }
  const out: RValue[] = [];
  for (let i = s; i < e; i++) out.push(((u >> BigInt(i)) & 1n) === 1n);
  return out;
});

function bitWindow(name: string, a: RValue[]): [number, number] {
  const p = pos(name, a, 1);
  const s = p < 0 ? 64 + p : p;
  if (s < 0 || s >= 64) throw new RhaiError('ErrorBitFieldBounds', `Bit-field index ${p} out of bounds`);
  const n = Math.max(0, Math.min(pos(name, a, 2), 64 - s));
  return [s, n];
}
defFor('i64', 'get_bits', 3, 3, (_c, a) => {
  const [s, n] = bitWindow('get_bits', a);
  const u = BigInt.asUintN(64, BigInt(int('get_bits', a, 0)));
  return fromBig((u >> BigInt(s)) & ((1n << BigInt(n)) - 1n));
});
defFor('i64', 'set_bits', 4, 4, (_c, a) => {
  const [s, n] = bitWindow('set_bits', a);
  const u = BigInt.asUintN(64, BigInt(int('set_bits', a, 0)));
  const mask = ((1n << BigInt(n)) - 1n) << BigInt(s);
  const v = (BigInt(int('set_bits', a, 3)) << BigInt(s)) & mask;
  a[0] = fromBig(BigInt.asIntN(64, (u & ~mask) | v));
  return undefined;
});
