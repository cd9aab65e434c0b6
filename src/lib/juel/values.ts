import { JuelDateTime } from './date-time.js';
import { JuelError } from './errors.js';
import { ExecutionObject, TaskObject } from './host-objects.js';

/**
 * A value during evaluation, one JavaScript type per EL type:
 * - `null`; `boolean` (Boolean); `string` (String);
 * - `bigint` is a Long (a 64-bit integer: integer literals, integral JSON numbers, sizes, indexes);
 * - `number` is a Double (float literals, non-integral JSON numbers, results of `/` and `div`);
 * - `Date` (java.util.Date); `JuelDateTime` (Joda DateTime, from `dateTime()`);
 * - arrays are Lists and plain objects Maps; their elements stay JSON and are read with `fromJson`;
 * - `ExecutionObject` and `TaskObject` are `execution` and `task`.
 */
export type JuelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Date
  | JuelDateTime
  | readonly unknown[]
  | JuelMap
  | ExecutionObject
  | TaskObject;

/** A JSON object: a Map with String keys. */
export type JuelMap = Readonly<Record<string, unknown>>;

const LONG_LIMIT = 2 ** 63;

/**
 * A variable's or element's JSON value as an EL value: an integral number within the Long range is a
 * Long, any other number a Double; undefined (a hole) is null.
 */
export function fromJson(value: unknown): JuelValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= -LONG_LIMIT && value < LONG_LIMIT ? BigInt(value) : value;
  }
  if (
    typeof value === 'boolean' ||
    typeof value === 'string' ||
    typeof value === 'bigint' ||
    value instanceof Date ||
    Array.isArray(value)
  ) {
    return value as JuelValue;
  }
  if (typeof value === 'object') return value as JuelMap;
  throw new JuelError(`A variable holds a ${typeof value}, which is not a JSON value`);
}

/** The value an evaluation returns: a Long as a number, a DateTime as a Date; execution/task refused. */
export function toResult(value: JuelValue): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof JuelDateTime) return new Date(value.millis);
  if (value instanceof ExecutionObject || value instanceof TaskObject) {
    throw new JuelError(`The value is the ${typeName(value)} object itself, which is not a variable value`);
  }
  return value;
}

/** True for a JSON array (an EL List). */
export function isList(value: JuelValue): value is readonly unknown[] {
  return Array.isArray(value);
}

/** True for a JSON object (an EL Map). */
export function isMap(value: JuelValue): value is JuelMap {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof JuelDateTime) &&
    !(value instanceof ExecutionObject) &&
    !(value instanceof TaskObject)
  );
}

/** The entry of a Map, or undefined when it has none (own keys only: `__proto__` is just a key). */
export function mapEntry(map: JuelMap, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** The EL type name of a value, for messages and for the method allow-list. */
export function typeName(value: JuelValue): JuelTypeName {
  if (value === null) return 'Null';
  switch (typeof value) {
    case 'boolean':
      return 'Boolean';
    case 'bigint':
      return 'Long';
    case 'number':
      return 'Double';
    case 'string':
      return 'String';
    default:
      break;
  }
  if (value instanceof Date) return 'Date';
  if (value instanceof JuelDateTime) return 'DateTime';
  if (value instanceof ExecutionObject) return 'Execution';
  if (value instanceof TaskObject) return 'Task';
  return Array.isArray(value) ? 'List' : 'Map';
}

/** The EL types of values. */
export type JuelTypeName =
  | 'Null'
  | 'Boolean'
  | 'Long'
  | 'Double'
  | 'String'
  | 'Date'
  | 'DateTime'
  | 'List'
  | 'Map'
  | 'Execution'
  | 'Task';
