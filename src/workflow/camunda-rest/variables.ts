import type { JsonValue, Variables } from '../engine/runtime/index.js';
import { parseCamundaDate } from './camunda-date.js';
import { CamundaErrors } from './camunda-errors.js';

/*
 * Camunda 7 sends and receives each variable as `{value, type, valueInfo}`; weft keeps plain JSON.
 * The mapping both ways is in docs/workflow/camunda7.md (Variables).
 */

/** One Camunda typed variable, as the REST API carries it. */
export interface TypedValue {
  value: unknown;
  type?: string | null | undefined;
  valueInfo?: Record<string, unknown> | null | undefined;
}

/** Variables as the REST API carries them: a name to a typed value. */
export type TypedVariables = Record<string, TypedValue>;

/** The Camunda types weft reads, by the lower-case name (Camunda reads type names in any case). */
const supportedTypes = [
  'string',
  'boolean',
  'integer',
  'long',
  'short',
  'double',
  'date',
  'json',
  'object',
  'null',
];

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const int16 = { min: -(2 ** 15), max: 2 ** 15 - 1 };

/**
 * Reads Camunda typed variables into weft JSON variables. Throws a 400 InvalidRequestException
 * naming the variable for a type weft does not support (File, Bytes, Xml, Java objects…) or a value
 * that does not fit its type. A missing body (`undefined`, `null`) is no variables.
 */
export function decodeVariables(typed: unknown, what = 'variables'): Variables {
  if (typed === undefined || typed === null) return {};
  if (typeof typed !== 'object' || Array.isArray(typed))
    throw CamundaErrors.invalid(`${what} must be an object of typed values`);
  const variables: Variables = {};
  for (const [name, entry] of Object.entries(typed as Record<string, unknown>)) {
    Object.defineProperty(variables, name, {
      value: decodeVariable(name, entry),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return variables;
}

/** Reads one typed value (see decodeVariables). */
export function decodeVariable(name: string, entry: unknown): JsonValue {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw CamundaErrors.invalid(`Variable '${name}' must be an object {value, type, valueInfo}`);
  const { value, type, valueInfo } = entry as TypedValue;
  const fail = (expected: string) =>
    CamundaErrors.invalid(`Variable '${name}': ${describe(value)} is not a valid ${expected} value`);
  if (type === undefined || type === null) return untyped(name, value);
  if (typeof type !== 'string') throw CamundaErrors.invalid(`Variable '${name}': type must be a string`);
  const kind = type.toLowerCase();
  if (!supportedTypes.includes(kind))
    throw CamundaErrors.invalid(
      `Variable '${name}': the type '${type}' is not supported; weft supports String, Boolean, Integer, Long, Short, Double, Date, Json, Object (application/json) and Null`,
    );
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'null':
      return null;
    case 'string':
      if (typeof value !== 'string') throw fail('String');
      return value;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw fail('Boolean');
    case 'integer':
      return integer(value, int32, () => fail('Integer'));
    case 'short':
      return integer(value, int16, () => fail('Short'));
    case 'long':
      return integer(value, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }, () =>
        fail('Long'),
      );
    case 'double': {
      const number = numeric(value);
      if (number === null) throw fail('Double');
      return number;
    }
    case 'date': {
      const date = typeof value === 'string' ? parseCamundaDate(value) : null;
      if (date === null)
        throw CamundaErrors.invalid(
          `Variable '${name}': ${describe(value)} is not a date in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ`,
        );
      return date.toISOString();
    }
    case 'json':
      return json(name, value);
    default: {
      // 'object': only JSON-serialised objects; Java and XML serialisations cannot be read here.
      const format = valueInfo?.serializationDataFormat;
      if (format !== 'application/json')
        throw CamundaErrors.invalid(
          `Variable '${name}': Object values need valueInfo.serializationDataFormat "application/json"; ${
            typeof format === 'string' ? `"${format}"` : 'none'
          } is not supported`,
        );
      return json(name, value);
    }
  }
}

/** Writes weft JSON variables as Camunda typed values (see encodeVariable). */
export function encodeVariables(variables: Variables, names?: readonly string[]): TypedVariables {
  const typed: TypedVariables = {};
  for (const [name, value] of Object.entries(variables)) {
    if (names !== undefined && !names.includes(name)) continue;
    Object.defineProperty(typed, name, {
      value: encodeVariable(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return typed;
}

/**
 * One weft JSON value as a Camunda typed value: strings are String, booleans Boolean, whole
 * numbers Integer within 32 bits and Long beyond, other numbers Double, null Null, and objects and
 * arrays Json (the value their JSON text).
 */
export function encodeVariable(value: JsonValue): TypedValue {
  if (value === null) return { type: 'Null', value: null, valueInfo: {} };
  switch (typeof value) {
    case 'string':
      return { type: 'String', value, valueInfo: {} };
    case 'boolean':
      return { type: 'Boolean', value, valueInfo: {} };
    case 'number':
      if (!Number.isInteger(value)) return { type: 'Double', value, valueInfo: {} };
      return value >= int32.min && value <= int32.max
        ? { type: 'Integer', value, valueInfo: {} }
        : { type: 'Long', value, valueInfo: {} };
    default:
      return { type: 'Json', value: JSON.stringify(value), valueInfo: {} };
  }
}

function untyped(name: string, value: unknown): JsonValue {
  // Camunda takes an untyped value as the JSON it is.
  if (value === undefined) return null;
  if (typeof value === 'number' && !Number.isFinite(value))
    throw CamundaErrors.invalid(`Variable '${name}': the value is not a finite number`);
  return value as JsonValue;
}

function json(name: string, value: unknown): JsonValue {
  if (typeof value !== 'string') return value as JsonValue;
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    throw CamundaErrors.invalid(`Variable '${name}': the value is not valid JSON text`);
  }
}

function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) {
    return Number(value.trim());
  }
  return null;
}

function integer(value: unknown, range: { min: number; max: number }, fail: () => Error): number {
  const number = numeric(value);
  if (number === null || !Number.isInteger(number) || number < range.min || number > range.max) throw fail();
  return number;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
