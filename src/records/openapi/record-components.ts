import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { bodySchemas, fieldJsonSchema } from '../schemas/field-json-schema.js';
import type { FieldDefinition } from '../types.js';
import type { Json } from './openapi-parts.js';

/**
 * OpenAPI 3.0 spells "or null" `nullable: true`, and an `enum` must list `null` itself for null to
 * be valid (3.0.3 clarification); without it a validator refuses the null an absent optional enum
 * field is shown as.
 */
export function nullableSchema(schema: Json): Json {
  const enumValues = schema.enum as unknown[] | undefined;
  return {
    ...schema,
    nullable: true,
    ...(enumValues && !enumValues.includes(null) ? { enum: [...enumValues, null] } : {}),
  };
}

/** A field's schema in a response: null when optional or hidden from some roles (access layer 5). */
function shownField(field: FieldDefinition, schema: CompiledSchema): Json {
  const base = fieldJsonSchema(field);
  if (field.type === 'json') return base;
  const masked = schema.definition.access.fieldAccess.some(
    (rule) => rule.field === field.name && rule.read !== undefined,
  );
  return field.required && !masked ? base : nullableSchema(base);
}

const systemProperties: Json = {
  id: { type: 'string', format: 'uuid' },
  created_at: { type: 'string', format: 'date-time' },
  created_by: { type: 'string' },
  updated_at: { type: 'string', format: 'date-time' },
  updated_by: { type: 'string' },
  version: { type: 'integer', minimum: 1 },
  deleted_at: { type: 'string', format: 'date-time', nullable: true },
};

/** Every field a record of `schema` can show, typed; none required (a `select` or a PATCH shows some). */
export function recordFields(schema: CompiledSchema): Json {
  const properties: Json = { ...systemProperties };
  for (const field of schema.definition.fields) properties[field.name] = shownField(field, schema);
  return { type: 'object', properties };
}

/** A whole record of `schema` with its system fields. */
export function recordSchema(schema: CompiledSchema): Json {
  return {
    ...recordFields(schema),
    required: ['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'version'],
  };
}

/** The create and patch bodies, rewritten from JSON Schema's `anyOf [x, null]` to 3.0's `nullable`. */
export function requestBodies(schema: CompiledSchema): { create: Json; patch: Json } {
  const bodies = bodySchemas(schema.definition.fields);
  const rewrite = (body: Json): Json => {
    const properties = { ...(body.properties as Json) };
    for (const field of schema.definition.fields) {
      if (field.type === 'json') continue;
      const base = fieldJsonSchema(field);
      properties[field.name] = field.required ? base : nullableSchema(base);
    }
    return { ...body, properties };
  };
  return { create: rewrite(bodies.create), patch: rewrite(bodies.patch) };
}
