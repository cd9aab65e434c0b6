// Rhai's BLOB editing functions (push, append, insert, extract, splice, drain, retain, ...): a BLOB is
// a byte array; INT values are stored as their low byte; positions follow Rhai's `calc_offset_len`.
import { RhaiError } from '../errors.js';
import type { EvaluationContext } from '../evaluation-context.js';
import { checkSize, checkString } from '../runtime.js';
import type { RhaiValue } from '../values.js';
import { RhaiBlob, RhaiChar, RhaiRange } from '../values.js';
import { clampedIntArgument, intArgument, noOverload } from './args.js';
import { blobSpan, byteOf, offsetSpan, spanArguments } from './blob-span.js';
import { defineFunctionFor } from './registry.js';

const B = 'blob';
const blobOf = (a: RhaiValue[]): RhaiBlob => a[0] as RhaiBlob;
const utf8 = new TextEncoder();
const lossyUtf8 = new TextDecoder();

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Replaces the blob's bytes and checks the size limit. */
function replaceBytes(context: EvaluationContext, blob: RhaiBlob, bytes: Uint8Array): void {
  blob.bytes = bytes;
  checkSize(context, blob);
}

defineFunctionFor(B, 'as_string', 1, 1, (context, a) =>
  checkString(context, lossyUtf8.decode(blobOf(a).bytes)),
);
defineFunctionFor(B, 'contains', 2, 2, (_c, a) =>
  blobOf(a).bytes.includes(byteOf(intArgument('contains', a, 1))),
);
defineFunctionFor(B, 'get', 2, 2, (_c, a) => {
  const b = blobOf(a).bytes;
  const [i] = offsetSpan(b.length, clampedIntArgument('get', a, 1), 0);
  return i < b.length ? b[i]! : 0;
});
defineFunctionFor(B, 'set', 3, 3, (_c, a) => {
  const b = blobOf(a).bytes;
  const [i] = offsetSpan(b.length, clampedIntArgument('set', a, 1), 0);
  if (i < b.length) b[i] = byteOf(intArgument('set', a, 2));
  return undefined;
});
defineFunctionFor(B, 'push', 2, 2, (context, a) => {
  const blob = blobOf(a);
  replaceBytes(context, blob, concat(blob.bytes, Uint8Array.of(byteOf(intArgument('push', a, 1)))));
  return undefined;
});
defineFunctionFor(B, 'append', 2, 2, (context, a) => {
  const blob = blobOf(a);
  const x = a[1];
  let more: Uint8Array;
  if (typeof x === 'number' || typeof x === 'bigint') more = Uint8Array.of(byteOf(x));
  else if (x instanceof RhaiBlob) more = x.bytes;
  else if (typeof x === 'string') more = utf8.encode(x);
  else if (x instanceof RhaiChar) more = utf8.encode(x.value);
  else throw noOverload('append', a);
  replaceBytes(context, blob, concat(blob.bytes, more));
  return undefined;
});
defineFunctionFor(B, 'insert', 3, 3, (context, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const byte = Uint8Array.of(byteOf(intArgument('insert', a, 2)));
  const [i] = offsetSpan(b.length, clampedIntArgument('insert', a, 1), 0);
  replaceBytes(context, blob, concat(b.subarray(0, i), byte, b.subarray(i)));
  return undefined;
});
defineFunctionFor(B, 'pad', 3, 3, (context, a) => {
  const blob = blobOf(a);
  const len = clampedIntArgument('pad', a, 1);
  if (len > context.limits.maxArraySize)
    throw new RhaiError('ErrorDataTooLarge', 'Size of BLOB exceeds the maximum limit');
  if (len > blob.bytes.length) {
    const out = new Uint8Array(len).fill(byteOf(intArgument('pad', a, 2)));
    out.set(blob.bytes);
    blob.bytes = out;
  }
  return undefined;
});
defineFunctionFor(B, 'pop', 1, 1, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  if (b.length === 0) return 0;
  blob.bytes = b.slice(0, -1);
  return b[b.length - 1]!;
});
defineFunctionFor(B, 'shift', 1, 1, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  if (b.length === 0) return 0;
  blob.bytes = b.slice(1);
  return b[0]!;
});
defineFunctionFor(B, 'remove', 2, 2, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const p = clampedIntArgument('remove', a, 1);
  const i = p < 0 ? b.length + p : p;
  if (i < 0 || i >= b.length) return 0;
  blob.bytes = concat(b.subarray(0, i), b.subarray(i + 1));
  return b[i]!;
});
defineFunctionFor(B, 'clear', 1, 1, (_c, a) => {
  blobOf(a).bytes = new Uint8Array(0);
  return undefined;
});
defineFunctionFor(B, 'truncate', 2, 2, (_c, a) => {
  const blob = blobOf(a);
  blob.bytes = blob.bytes.slice(0, Math.max(0, clampedIntArgument('truncate', a, 1)));
  return undefined;
});
defineFunctionFor(B, 'chop', 2, 2, (_c, a) => {
  const blob = blobOf(a);
  const len = clampedIntArgument('chop', a, 1);
  blob.bytes = len <= 0 ? new Uint8Array(0) : blob.bytes.slice(Math.max(0, blob.bytes.length - len));
  return undefined;
});
defineFunctionFor(B, 'reverse', 1, 1, (_c, a) => {
  blobOf(a).bytes.reverse();
  return undefined;
});
defineFunctionFor(B, 'extract', 2, 3, (_c, a) => {
  const b = blobOf(a).bytes;
  if (a.length === 2 && !(a[1] instanceof RhaiRange)) {
    const [s, e] = offsetSpan(b.length, clampedIntArgument('extract', a, 1), Number.MAX_SAFE_INTEGER);
    return new RhaiBlob(b.slice(s, e));
  }
  const [s, e] = blobSpan('extract', a, b.length);
  return new RhaiBlob(b.slice(s, e));
});
defineFunctionFor(B, 'split', 2, 2, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const [s] = offsetSpan(b.length, clampedIntArgument('split', a, 1), 0);
  blob.bytes = b.slice(0, s);
  return new RhaiBlob(b.slice(s));
});
defineFunctionFor(B, 'drain', 2, 3, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const [s, e] = blobSpan('drain', a, b.length);
  blob.bytes = concat(b.subarray(0, s), b.subarray(e));
  return new RhaiBlob(b.slice(s, e));
});
defineFunctionFor(B, 'retain', 2, 3, (_c, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const { start, count } = spanArguments('retain', a);
  if (b.length === 0 || count <= 0) return new RhaiBlob(new Uint8Array(0));
  const [s, e] = offsetSpan(b.length, start, count);
  blob.bytes = b.slice(s, e);
  return new RhaiBlob(concat(b.subarray(0, s), b.subarray(e)));
});
defineFunctionFor(B, 'splice', 3, 4, (context, a) => {
  const blob = blobOf(a);
  const b = blob.bytes;
  const [s, e, next] = blobSpan('splice', a, b.length);
  const replacement = a[next];
  if (!(replacement instanceof RhaiBlob)) throw noOverload('splice', a);
  // As Rhai: an empty span appends the replacement at the end rather than inserting it at the start.
  const bytes =
    b.length === 0
      ? replacement.bytes.slice()
      : s === e
        ? concat(b, replacement.bytes)
        : concat(b.subarray(0, s), replacement.bytes, b.subarray(e));
  replaceBytes(context, blob, bytes);
  return undefined;
});
