import { RhaiError } from '../errors.js';
import { fromBigInt } from '../int-math.js';
import type { RhaiValue } from '../values.js';
import { RhaiBlob, RhaiFloat } from '../values.js';
import { intArgument, clampedIntArgument, stringArgument } from './args.js';
import { blobSpan } from './blob-span.js';
import { defineFunction, defineFunctionFor } from './registry.js';

const B = 'blob';
const bytes = (a: RhaiValue[]): Uint8Array => (a[0] as RhaiBlob).bytes;
const utf8 = new TextEncoder();

defineFunction('blob', 0, 2, (context, a) => {
  const n = a.length > 0 ? Math.max(0, clampedIntArgument('blob', a, 0)) : 0;
  if (n > context.limits.maxArraySize)
    throw new RhaiError('ErrorDataTooLarge', 'Size of BLOB exceeds the maximum limit');
  const b = new Uint8Array(n);
  if (a.length > 1) b.fill(Number(BigInt.asUintN(8, BigInt(intArgument('blob', a, 1)))));
  return new RhaiBlob(b);
});
defineFunctionFor(B, 'len', 1, 1, (_c, a) => bytes(a).length);
defineFunctionFor(B, 'is_empty', 1, 1, (_c, a) => bytes(a).length === 0);
defineFunctionFor(B, 'to_array', 1, 1, (_c, a) => Array.from(bytes(a)));

function parseInt(le: boolean) {
  const name = le ? 'parse_le_int' : 'parse_be_int';
  return (_c: unknown, a: RhaiValue[]): RhaiValue => {
    const b = bytes(a);
    const [s, e0] = blobSpan(name, a, b.length);
    const e = Math.min(e0, s + 8);
    const buf = new Uint8Array(8);
    for (let i = s; i < e; i++) buf[le ? i - s : i - s] = b[i]!;
    let v = 0n;
    if (le) for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(buf[i]!);
    else for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(buf[i]!);
    return fromBigInt(BigInt.asIntN(64, v));
  };
}
defineFunctionFor(B, 'parse_le_int', 2, 3, parseInt(true));
defineFunctionFor(B, 'parse_be_int', 2, 3, parseInt(false));

/** `parse_le_float` / `parse_be_float`: up to 8 bytes as an f64, missing bytes taken as zero. */
function parseFloat(le: boolean) {
  const name = le ? 'parse_le_float' : 'parse_be_float';
  return (_c: unknown, a: RhaiValue[]): RhaiValue => {
    const b = bytes(a);
    const [s, e0] = blobSpan(name, a, b.length);
    const buf = new Uint8Array(8);
    buf.set(b.subarray(s, Math.min(e0, s + 8)));
    return new RhaiFloat(new DataView(buf.buffer).getFloat64(0, le));
  };
}
defineFunctionFor(B, 'parse_le_float', 2, 3, parseFloat(true));
defineFunctionFor(B, 'parse_be_float', 2, 3, parseFloat(false));

/** Writes the leading bytes of `data` into the window; bytes past either end are not written. */
function writeBytes(name: string, a: RhaiValue[], data: (next: number) => Uint8Array): RhaiValue {
  const b = bytes(a);
  const [s, e, next] = blobSpan(name, a, b.length);
  const d = data(next);
  b.set(d.subarray(0, Math.min(d.length, e - s)), s);
  return undefined;
}

// `write_le` / `write_be` of an INT (8 bytes) or a FLOAT (its 8 IEEE-754 bytes).
function writeNumber(le: boolean) {
  const name = le ? 'write_le' : 'write_be';
  return (_c: unknown, a: RhaiValue[]): RhaiValue =>
    writeBytes(name, a, (next) => {
      const v = a[next];
      const buf = new DataView(new ArrayBuffer(8));
      if (v instanceof RhaiFloat) buf.setFloat64(0, v.value, le);
      else buf.setBigUint64(0, BigInt.asUintN(64, BigInt(intArgument(name, a, next))), le);
      return new Uint8Array(buf.buffer);
    });
}
defineFunctionFor(B, 'write_le', 3, 4, writeNumber(true));
defineFunctionFor(B, 'write_be', 3, 4, writeNumber(false));
defineFunctionFor(B, 'write_utf8', 3, 4, (_c, a) =>
  writeBytes('write_utf8', a, (next) => utf8.encode(stringArgument('write_utf8', a, next))),
);
defineFunctionFor(B, 'write_ascii', 3, 4, (_c, a) =>
  writeBytes('write_ascii', a, (next) => {
    const ascii = [...stringArgument('write_ascii', a, next)].filter((ch) => ch.charCodeAt(0) < 128);
    return Uint8Array.from(ascii, (ch) => ch.charCodeAt(0));
  }),
);
