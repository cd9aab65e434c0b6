import type { JsonValue, Variables } from './types.js';

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Variables {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A 64-bit integer becomes a number when it fits exactly, else its decimal text.
function bigintAsJson(_key: string, value: unknown): unknown {
  if (typeof value !== 'bigint') return value;
  return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
    ? Number(value)
    : value.toString();
}

/**
 * Turns what a language produced into plain JSON: dates and durations become their ISO text
 * (through their `toJSON`), `undefined` and non-finite numbers become null, big integers numbers.
 * JSON.parse defines `__proto__` as an own key, so a hostile key stays data.
 */
export function toJsonValue(value: unknown): JsonValue {
  const text = JSON.stringify(value, bigintAsJson);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Structural equality of two JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i] as JsonValue));
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key] as JsonValue, b[key] as JsonValue));
}

/** The variables with `changes` set over them, as a new object; own `__proto__` keys stay own keys. */
export function mergeVariables(variables: Variables, changes: Variables): Variables {
  return { ...variables, ...changes };
}

/** Sets `key` as an own data property, so a key named `__proto__` cannot replace the prototype. */
export function setOwn(target: Variables, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
