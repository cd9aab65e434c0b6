import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RecordsErrors, type FieldProblem } from '../errors.js';
import { systemFields } from '../types.js';
import { re2AjvEngine } from './re2-ajv-engine.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = addFormats(
  new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    code: { regExp: re2AjvEngine },
  }),
);

/** A compiled validator of one request body shape that throws VALIDATION_ERROR listing every field. */
export type BodyValidator = (body: unknown) => Record<string, unknown>;

function problemOf(error: ErrorObject): FieldProblem {
  const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  if (error.keyword === 'additionalProperty' || extra !== undefined) {
    const field = extra ?? base;
    const reason = (systemFields as readonly string[]).includes(field)
      ? 'is a system field and cannot be set'
      : 'is not a field of this schema';
    return { field, reason };
  }
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (missing !== undefined) return { field: missing, reason: 'is required' };
  return { field: base || '(body)', reason: error.message ?? 'is invalid' };
}

/** Compiles a JSON Schema into a body validator. */
export function compileBodyValidator(schema: Record<string, unknown>): BodyValidator {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw RecordsErrors.validation('The request body must be a JSON object', [
        { field: '(body)', reason: 'must be an object' },
      ]);
    if (validate(body)) return body as Record<string, unknown>;
    const seen = new Set<string>();
    const problems = (validate.errors ?? []).map(problemOf).filter((problem) => {
      // anyOf (nullable) reports each branch; one line per field and reason is enough.
      const key = `${problem.field}\u0000${problem.reason}`;
      if (seen.has(key) || problem.reason === 'must match a schema in anyOf') return false;
      seen.add(key);
      return true;
    });
    throw RecordsErrors.validation('The record is invalid', problems);
  };
}
