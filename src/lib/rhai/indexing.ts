import { RhaiError } from './errors.js';
import { big, fromBig } from './int-math.js';
import type { Ctx } from './runtime.js';
import { checkSize, checkString } from './runtime.js';
import type { RValue } from './values.js';
import { chars, hasSurrogates, own, RBlob, RChar, RRange, toDisplay, typeOf } from './values.js';

/** Resolves a possibly negative index against a length; undefined when out of bounds. */
export function normIndex(i: number | bigint, len: number): number | undefined {
  const n = Number(i);
  const r = n < 0 ? len + n : n;
  return r >= 0 && r < len ? r : undefined;
}

/** Start and end (exclusive) of a range over a sequence, clamped as Rhai does. */
export function rangeBounds(r: RRange, len: number): [number, number] {
  let start = Number(r.from);
  let end = Number(r.to);
  if (start < 0) start = Math.max(0, len + start);
  if (end < 0) {
    end = Math.max(0, len + end);
    if (end <= start) return [Math.min(start, len), Math.min(start, len)];
  }
  if (r.incl) end++;
  start = Math.min(start, len);
  end = Math.min(Math.max(end, start), len);
  return [start, end];
}

function indexError(kind: string, len: number, i: RValue): RhaiError {
  return new RhaiError(kind, `Index ${toDisplay(i)} out of bounds (length ${len})`);
}

function intIndex(idx: RValue, on: RValue): number | bigint {
  if (typeof idx === 'number' || typeof idx === 'bigint') return idx;
  throw new RhaiError('ErrorIndexingType', `Cannot index ${typeOf(on)} with ${typeOf(idx)}`);
}

/** `container[idx]`: array element, map value, string char, INT bit or bit range, BLOB byte. */
export function getIndex(container: RValue, idx: RValue): RValue {
  if (Array.isArray(container)) {
    if (idx instanceof RRange) {
      const [s, e] = rangeBounds(idx, container.length);
      return container.slice(s, e).map(own);
    }
    const i = normIndex(intIndex(idx, container), container.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.length, idx);
    return container[i];
  }
  if (container instanceof Map) {
    const k = typeof idx === 'string' ? idx : idx instanceof RChar ? idx.c : undefined;
    if (k === undefined) throw new RhaiError('ErrorIndexingType', `Cannot index a map with ${typeOf(idx)}`);
    return container.get(k);
  }
  if (typeof container === 'string') {
    const cs = hasSurrogates(container) ? chars(container) : undefined;
    const len = cs ? cs.length : container.length;
    if (idx instanceof RRange) {
      const [s, e] = rangeBounds(idx, len);
      return cs ? cs.slice(s, e).join('') : container.slice(s, e);
    }
    const i = normIndex(intIndex(idx, container), len);
    if (i === undefined) throw indexError('ErrorStringBounds', len, idx);
    return new RChar(cs ? cs[i]! : container[i]!);
  }
  if (typeof container === 'number' || typeof container === 'bigint') {
    if (idx instanceof RRange) {
      const [s, e] = bitRange(idx);
      return fromBig(
        BigInt.asIntN(64, (BigInt.asUintN(64, big(container)) >> BigInt(s)) & ((1n << BigInt(e - s)) - 1n)),
      );
    }
    const i = bitIndex(intIndex(idx, container));
    return ((BigInt.asUintN(64, big(container)) >> BigInt(i)) & 1n) === 1n;
  }
  if (container instanceof RBlob) {
    const i = normIndex(intIndex(idx, container), container.bytes.length);
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
export function bitRange(r: RRange): [number, number] {
  const s = Number(r.from);
  const e = Math.min(Number(r.to) + (r.incl ? 1 : 0), 64);
  if (s < 0 || s > 64) throw new RhaiError('ErrorBitFieldBounds', `Bit-field index ${s} out of bounds`);
  return [s, Math.max(s, e)];
}

/** `container[idx] = value`; returns the container (a new one for strings and INTs). */
export function setIndex(c: Ctx, container: RValue, idx: RValue, value: RValue): RValue {
  if (Array.isArray(container)) {
    const i = normIndex(intIndex(idx, container), container.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.length, idx);
    container[i] = own(value);
    if (typeof value === 'object') checkSize(c, container);
    return container;
  }
  if (container instanceof Map) {
    const k = typeof idx === 'string' ? idx : idx instanceof RChar ? idx.c : undefined;
    if (k === undefined) throw new RhaiError('ErrorIndexingType', `Cannot index a map with ${typeOf(idx)}`);
    container.set(k, own(value));
    checkSize(c, container);
    return container;
  }
  if (typeof container === 'string') {
    const cs = chars(container);
    if (idx instanceof RRange) {
      const [s, e] = rangeBounds(idx, cs.length);
      const text = typeof value === 'string' ? value : value instanceof RChar ? value.c : undefined;
      if (text === undefined)
        throw new RhaiError('ErrorMismatchDataType', `Expecting a string, not ${typeOf(value)}`);
      return checkString(c, cs.slice(0, s).join('') + text + cs.slice(e).join(''));
    }
    const i = normIndex(intIndex(idx, container), cs.length);
    if (i === undefined) throw indexError('ErrorStringBounds', cs.length, idx);
    if (!(value instanceof RChar))
      throw new RhaiError('ErrorMismatchDataType', `Expecting a char, not ${typeOf(value)}`);
    cs[i] = value.c;
    return cs.join('');
  }
  if (typeof container === 'number' || typeof container === 'bigint') {
    const u = BigInt.asUintN(64, big(container));
    if (idx instanceof RRange) {
      const [s, e] = bitRange(idx);
      if (typeof value !== 'number' && typeof value !== 'bigint') {
        throw new RhaiError('ErrorMismatchDataType', `Expecting an integer, not ${typeOf(value)}`);
      }
      const mask = ((1n << BigInt(e - s)) - 1n) << BigInt(s);
      return fromBig(BigInt.asIntN(64, (u & ~mask) | ((big(value) << BigInt(s)) & mask)));
    }
    const i = BigInt(bitIndex(intIndex(idx, container)));
    if (typeof value !== 'boolean')
      throw new RhaiError('ErrorMismatchDataType', `Expecting a bool, not ${typeOf(value)}`);
    return fromBig(BigInt.asIntN(64, value ? u | (1n << i) : u & ~(1n << i)));
  }
  if (container instanceof RBlob) {
    const i = normIndex(intIndex(idx, container), container.bytes.length);
    if (i === undefined) throw indexError('ErrorArrayBounds', container.bytes.length, idx);
    if (typeof value !== 'number')
      throw new RhaiError('ErrorMismatchDataType', `Expecting an integer, not ${typeOf(value)}`);
    container.bytes[i] = value & 0xff;
    return container;
  }
  throw new RhaiError('ErrorIndexingType', `Cannot index ${typeOf(container)}`);
}
