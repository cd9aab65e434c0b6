import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function createAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Validates request parts with JSON Schema. Query strings, path parameters and headers are text,
 * so their values are coerced to the declared types; JSON bodies are not, so `{"email": 5}` is a
 * validation error rather than the string "5".
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = createAjv('array');
  const strict = createAjv(false);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
