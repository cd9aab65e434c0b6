import { RhaiError } from './errors.js';
import { toBigInt, fromBigInt } from './int-math.js';
import type { EvaluationContext } from './evaluation-context.js';
import { checkSize, checkString } from './runtime.js';
import type { RhaiValue } from './values.js';
import {
  chars,
  hasSurrogates,
  ownedValue,
  RhaiBlob,
  RhaiChar,
  RhaiRange,
  toDisplay,
  typeOf,
} from './values.js';

/** Resolves a possibly negative index against a length; undefined when out of bounds. */
export function normalizeIndex(i: number | bigint, len: number): number | undefined {
  const n = Number(i);
  const r = n < 0 ? len + n : n;
  return r >= 0 && r < len ? r : undefined;
}

/** Start and end (exclusive) of a range over a sequence, clamped as Rhai does. */
export function rangeBounds(r: RhaiRange, len: number): [number, number] {
  let start = Number(r.from);
  let end = Number(r.to);
  if (start < 0) start = Math.max(0, len + start);
  if (end < 0) {
    end = Math.max(0, len + end);
    if (end <= start) return [Math.min(start, len), Math.min(start, len)];
  }
  if (r.inclusive) end++;
  start = Math.min(start, len);
  end = Math.min(Math.max(end, start), len);
  return [start, end];
}

function indexError(kind: string, len: number, i: RhaiValue): RhaiError {
  return new RhaiError(kind, `Index ${toDisplay(i)} out of bounds (length ${len})`);
}

function intIndex(idx: RhaiValue, on: RhaiValue): number | bigint {
  if (typeof idx === 'number' || typeof idx === 'bigint') return idx;
  throw new RhaiError('ErrorIndexingType', `Cannot index ${typeOf(on)} with ${typeOf(idx)}`);
}

/** `container[idx]`: array element, map value, string char, INT bit or bit range, BLOB byte. */
export function getIndex(container: RhaiValue, idx: RhaiValue): RhaiValue {
  if (Array.isArray(container)) {
    if (idx instanceof RhaiRange) {
      const [s, e] = rangeBounds(idx, container.length);
      return container.slice(s, e).map(ownedValue);
    }
    const i = normalizeIndex(intIndex(idx, container), container.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.length, idx);
    return container[i];
  }
  if (container instanceof Map) {
    const k = typeof idx === 'string' ? idx : idx instanceof RhaiChar ? idx.value : undefined;
    if (k === undefined) throw new RhaiError('ErrorIndexingType', `Cannot index a map with ${typeOf(idx)}`);
    return container.get(k);
  }
  if (typeof container === 'string') {
    const cs = hasSurrogates(container) ? chars(container) : undefined;
    const len = cs ? cs.length : container.length;
    if (idx instanceof RhaiRange) {
      const [s, e] = rangeBounds(idx, len);
      return cs ? cs.slice(s, e).join('') : container.slice(s, e);
    }
    const i = normalizeIndex(intIndex(idx, container), len);
    if (i === undefined) throw indexError('ErrorStringBounds', len, idx);
    return new RhaiChar(cs ? cs[i]! : container[i]!);
  }
  if (typeof container === 'number' || typeof container === 'bigint') {
    if (idx instanceof RhaiRange) {
      const [s, e] = bitRange(idx);
      return fromBigInt(
        BigInt.asIntN(
          64,
          (BigInt.asUintN(64, toBigInt(container)) >> BigInt(s)) & ((1n << BigInt(e - s)) - 1n),
        ),
      );
    }
    const i = bitIndex(intIndex(idx, container));
    return ((BigInt.asUintN(64, toBigInt(container)) >> BigInt(i)) & 1n) === 1n;
  }
  if (container instanceof RhaiBlob) {
    const i = normalizeIndex(intIndex(idx, container), container.bytes.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.bytes.length, idx);
    return container.bytes[i];
  }
  throw new RhaiError('ErrorIndexingType', `Cannot index ${typeOf(container)}`);
}

function bitIndex(i: number | bigint): number {
  const n = Number(i);
  const r = n < 0 ? 64 + n : n;
  if (r < 0 || r >= 64) throw new RhaiError('ErrorBitFieldBounds', `Bit-field index ${n} out of bounds`);
  return r;
}

/** Start and end (exclusive) bit positions of a bit range; negative positions are errors. */
export function bitRange(r: RhaiRange): [number, number] {
  const s = Number(r.from);
  const e = Math.min(Number(r.to) + (r.inclusive ? 1 : 0), 64);
  if (s < 0 || s > 64) throw new RhaiError('ErrorBitFieldBounds', `Bit-field index ${s} out of bounds`);
  return [s, Math.max(s, e)];
}

/** `container[idx] = value`; returns the container (a new one for strings and INTs). */
export function setIndex(
  context: EvaluationContext,
  container: RhaiValue,
  idx: RhaiValue,
  value: RhaiValue,
): RhaiValue {
  if (Array.isArray(container)) {
    const i = normalizeIndex(intIndex(idx, container), container.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.length, idx);
    container[i] = ownedValue(value);
    if (typeof value === 'object') checkSize(context, container);
    return container;
  }
  if (container instanceof Map) {
    const k = typeof idx === 'string' ? idx : idx instanceof RhaiChar ? idx.value : undefined;
    if (k === undefined) throw new RhaiError('ErrorIndexingType', `Cannot index a map with ${typeOf(idx)}`);
    container.set(k, ownedValue(value));
    checkSize(context, container);
    return container;
  }
  if (typeof container === 'string') {
    const cs = chars(container);
    if (idx instanceof RhaiRange) {
      const [s, e] = rangeBounds(idx, cs.length);
      const text = typeof value === 'string' ? value : value instanceof RhaiChar ? value.value : undefined;
      if (text === undefined)
        throw new RhaiError('ErrorMismatchDataType', `Expecting a string, not ${typeOf(value)}`);
      return checkString(context, cs.slice(0, s).join('') + text + cs.slice(e).join(''));
    }
    const i = normalizeIndex(intIndex(idx, container), cs.length);
    if (i === undefined) throw indexError('ErrorStringBounds', cs.length, idx);
    if (!(value instanceof RhaiChar))
      throw new RhaiError('ErrorMismatchDataType', `Expecting a char, not ${typeOf(value)}`);
    cs[i] = value.value;
    return cs.join('');
  }
  if (typeof container === 'number' || typeof container === 'bigint') {
    const u = BigInt.asUintN(64, toBigInt(container));
    if (idx instanceof RhaiRange) {
      const [s, e] = bitRange(idx);
      if (typeof value !== 'number' && typeof value !== 'bigint') {
        throw new RhaiError('ErrorMismatchDataType', `Expecting an integer, not ${typeOf(value)}`);
      }
      const mask = ((1n << BigInt(e - s)) - 1n) << BigInt(s);
      return fromBigInt(BigInt.asIntN(64, (u & ~mask) | ((toBigInt(value) << BigInt(s)) & mask)));
    }
    const i = BigInt(bitIndex(intIndex(idx, container)));
    if (typeof value !== 'boolean')
      throw new RhaiError('ErrorMismatchDataType', `Expecting a bool, not ${typeOf(value)}`);
    return fromBigInt(BigInt.asIntN(64, value ? u | (1n << i) : u & ~(1n << i)));
  }
  if (container instanceof RhaiBlob) {
    const i = normalizeIndex(intIndex(idx, container), container.bytes.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.bytes.length, idx);
    if (typeof value !== 'number')
      throw new RhaiError('ErrorMismatchDataType', `Expecting an integer, not ${typeOf(value)}`);
    container.bytes[i] = value & 0xff;
    return container;
  }
  throw new RhaiError('ErrorIndexingType', `Cannot index ${typeOf(container)}`);
}
