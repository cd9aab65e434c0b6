import type { JsonValue, Variables } from './types.js';

/**
 * Where `value` stops being plain JSON (a function, undefined, NaN, a Date, a class instance, a
 * cycle), as a path like `order.items[2]`; null when it is JSON.
 */
export function nonJsonPath(value: unknown, path = '$', seen = new Set<object>()): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (typeof value !== 'object') return path;
  if (seen.has(value)) return path;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const inner = nonJsonPath(value[i], `${path}[${i}]`, seen);
        if (inner !== null) return inner;
      }
      return null;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return path;
    for (const [key, item] of Object.entries(value)) {
      const inner = nonJsonPath(item, `${path}.${key}`, seen);
      if (inner !== null) return inner;
    }
    return null;
  } finally {
    seen.delete(value);
  }
}

/** A deep copy of JSON data. JSON.parse defines `__proto__` as an own key, so it stays data. */
export function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Turns a FEEL result into JSON: dates, times and durations become their ISO text, non-finite
 * numbers and undefined become null; functions and ranges cannot be stored and give null.
 */
export function toJsonValue(value: unknown): JsonValue {
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'number' && !Number.isFinite(item)) return null;
    if (typeof item === 'function' || typeof item === 'bigint' || typeof item === 'symbol') return null;
    return item;
  });
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Sets `key` as an own data property, so a variable named `__proto__` cannot replace the prototype. */
export function setOwn(target: Variables, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
