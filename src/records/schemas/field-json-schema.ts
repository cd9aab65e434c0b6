import type { FieldDefinition } from '../types.js';

/** The JSON Schema of one field's value (used for request validation and OpenAPI). */
export function fieldJsonSchema(field: FieldDefinition): Record<string, unknown> {
  switch (field.type) {
    case 'string':
      return {
        type: 'string',
        ...(field.minLength !== undefined ? { minLength: field.minLength } : {}),
        ...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {}),
        ...(field.pattern !== undefined ? { pattern: field.pattern } : {}),
      };
    case 'integer':
    case 'number':
      return {
        type: field.type,
        ...(field.min !== undefined ? { minimum: field.min } : {}),
        ...(field.max !== undefined ? { maximum: field.max } : {}),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'enum':
      return { type: 'string', enum: field.enum ?? [] };
    case 'json':
      return {};
  }
}

/** A field's schema that also accepts null (for optional fields). */
export function nullable(schema: Record<string, unknown>, field: FieldDefinition): Record<string, unknown> {
  if (field.required || field.type === 'json') return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

/** JSON Schemas of a schema version's create and patch bodies. */
export function bodySchemas(fields: FieldDefinition[]): {
  create: Record<string, unknown>;
  patch: Record<string, unknown>;
} {
  const properties: Record<string, unknown> = {};
  for (const field of fields) properties[field.name] = nullable(fieldJsonSchema(field), field);
  const patchProperties: Record<string, unknown> = { ...properties };
  for (const field of fields)
    if (field.type === 'json' && field.required) patchProperties[field.name] = { not: { type: 'null' } };
  return {
    create: {
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' }, ...properties },
      required: fields
        .filter((field) => field.required && field.default === undefined)
        .map((field) => field.name),
      additionalProperties: false,
    },
    patch: {
      type: 'object',
      properties: { version: { type: 'integer', minimum: 1, maximum: 2147483647 }, ...patchProperties },
      required: ['version'],
      additionalProperties: false,
    },
  };
}
