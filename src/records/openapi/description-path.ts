import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { envelope, jsonResponse, recordSecurity, type Json } from './openapi-parts.js';

const text = { type: 'string' };
const flag = { type: 'boolean' };
const strings = { type: 'array', items: text };

const fieldDescription: Json = {
  type: 'object',
  required: [
    'name',
    'type',
    'required',
    'unique',
    'searchable',
    'filterable',
    'sortable',
    'readable',
    'writable',
  ],
  properties: {
    name: text,
    type: {
      type: 'string',
      enum: ['string', 'integer', 'number', 'boolean', 'timestamp', 'date', 'json', 'enum', 'uuid'],
    },
    required: flag,
    unique: flag,
    default: {},
    enum: strings,
    min: { type: 'number' },
    max: { type: 'number' },
    minLength: { type: 'integer' },
    maxLength: { type: 'integer' },
    pattern: text,
    searchable: flag,
    filterable: flag,
    sortable: flag,
    references: text,
    readable: flag,
    writable: flag,
  },
};

/** The schema description document `GET /{path}/_schema` answers. */
export const schemaDescription: Json = {
  type: 'object',
  required: ['path', 'displayName', 'description', 'timeMachine', 'searchTier', 'fields', 'operations'],
  properties: {
    path: text,
    displayName: text,
    description: text,
    timeMachine: flag,
    searchTier: { type: 'integer' },
    fields: { type: 'array', items: fieldDescription },
    operations: {
      type: 'object',
      required: ['create', 'read', 'update', 'delete'],
      properties: { create: flag, read: flag, update: flag, delete: flag },
    },
    filterOperators: strings,
    queryOperators: strings,
  },
};

/** `GET /{path}/_schema`: the fields and what the caller may do with them. */
export function descriptionPath(schema: CompiledSchema): Json {
  return {
    [`/api/${schema.path}/_schema`]: {
      get: {
        tags: [schema.path],
        summary: `Fields of ${schema.definition.displayName} and what the caller may read, write and do`,
        security: recordSecurity,
        responses: { '200': jsonResponse(envelope(schemaDescription), 'The schema description') },
      },
    },
  };
}
