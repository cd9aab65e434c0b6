import type { RhaiMap, RhaiValue } from './values.js';
import { FunctionPointer, RhaiBlob, RhaiChar, RhaiFloat, RhaiTimestamp, toDebug } from './values.js';

/** A JSON value as the workflow stores process variables. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const I64_MIN = -(2 ** 63);
const I64_MAX = 2 ** 63;

/** JSON to Rhai: integers become INT, other numbers FLOAT, objects maps (any key, `__proto__` included). */
export function fromJson(v: JsonValue): RhaiValue {
  if (v === null) return undefined;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      if (Number.isSafeInteger(v)) return v === 0 ? 0 : v;
      if (Number.isInteger(v) && v >= I64_MIN && v < I64_MAX) return BigInt(v);
      return new RhaiFloat(v);
  }
  if (Array.isArray(v)) return v.map(fromJson);
  const m: RhaiMap = new Map();
  for (const k of Object.keys(v)) m.set(k, fromJson(v[k]!));
  return m;
}

/** Sets an own enumerable property, also for keys such as `__proto__`. */
export function setOwnKey(o: Record<string, JsonValue>, k: string, v: JsonValue): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * Rhai to JSON: INT becomes a number (a decimal string beyond ±2^53, where doubles lose precision),
 * FLOAT a number (null when not finite), char a string, unit null, a function pointer its name,
 * a BLOB an array of bytes, a timestamp its milliseconds, ranges their text.
 */
export function toJson(v: RhaiValue): JsonValue {
  switch (typeof v) {
    case 'undefined':
      return null;
    case 'boolean':
    case 'number':
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
  }
  if (v instanceof RhaiFloat) return Number.isFinite(v.value) ? v.value : null;
  if (v instanceof RhaiChar) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const o: Record<string, JsonValue> = {};
    for (const [k, x] of v) setOwnKey(o, k, toJson(x));
    return o;
  }
  if (v instanceof FunctionPointer) return v.name;
  if (v instanceof RhaiBlob) return Array.from(v.bytes);
  if (v instanceof RhaiTimestamp) return v.ms;
  return toDebug(v);
}
