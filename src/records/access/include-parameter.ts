import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { IncludePlan } from './access-control.js';

const maxIncludes = 5;

function fail(reason: string): never {
  throw RecordsErrors.validation('Invalid query parameter include', [{ field: 'include', reason }]);
}

/**
 * Parses `include=field[,field]`: each field must be declared `references: <schema path>` and that
 * schema must be served. Whether the caller may read it is layer 3 (AccessControl).
 */
export function parseInclude(
  value: unknown,
  schema: CompiledSchema,
  registry: SchemaRegistry,
): IncludePlan[] {
  if (value === undefined) return [];
  if (typeof value !== 'string' || value === '')
    return fail('must be given once, as a comma-separated list of fields');
  const names = [...new Set(value.split(','))];
  if (names.length > maxIncludes) return fail(`at most ${maxIncludes} fields`);
  return names.map((name) => {
    const field = schema.definition.fields.find((candidate) => candidate.name === name);
    if (!field?.references) return fail(`${name.slice(0, 100)} is not a reference field of ${schema.path}`);
    try {
      return { field: name, target: registry.resolve(field.references) };
    } catch {
      return fail(`${name} refers to ${field.references}, which is not served`);
    }
  });
}
