import type { CompiledSchema } from '../schemas/compiled-schema.js';
import {
  envelope,
  errorResponse,
  idParameter,
  idempotencyHeader,
  jsonBody,
  jsonResponse,
  recordSecurity,
  ref,
  type Json,
} from './openapi-parts.js';

/** Component names of one schema's record shapes. */
export interface SchemaComponentNames {
  record: string;
  fields: string;
  create: string;
  patch: string;
}

function listParameters(schema: CompiledSchema): Json[] {
  return [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, default: 100 } },
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
    { name: 'cursor', in: 'query', schema: { type: 'string' } },
    {
      name: 'sort',
      in: 'query',
      schema: { type: 'string' },
      description: 'Comma-separated sortable fields; prefix - for descending',
    },
    ...[...schema.columns.values()]
      .filter((column) => column.filterable)
      .map((column) => ({
        name: `filter[${column.name}]`,
        in: 'query',
        schema: { type: 'string' },
        description: `Equality on ${column.name}; filter[${column.name}][op] with op gt, lt, gte, lte, ne, in, exists`,
      })),
  ];
}

const includeParameter = {
  name: 'include',
  in: 'query',
  schema: { type: 'string' },
  description: 'Comma-separated reference fields whose records are returned in `included`',
};

/** The list envelope of `items`, with `pagination` (and `included` when asked for). */
export const pageOf = (items: Json): Json =>
  envelope(
    { type: 'array', items },
    { pagination: ref('Pagination'), included: { type: 'object', additionalProperties: true } },
  );

const writeErrors = {
  '409': errorResponse('A unique value exists, or a request with this Idempotency-Key is still running'),
  '422': errorResponse('Idempotency-Key reused with another request'),
};

/** Create, list, query, read, update and delete of one schema. */
export function crudPaths(schema: CompiledSchema, names: SchemaComponentNames): Json {
  const tags = [schema.path];
  const title = schema.definition.displayName;
  const operationName = names.record.replace(/Record$/, '');
  const security = recordSecurity;
  const one = envelope(ref(names.record), { included: { type: 'object', additionalProperties: true } });
  return {
    [`/api/${schema.path}`]: {
      post: {
        tags,
        summary: `Create a ${title} record`,
        operationId: `create${operationName}`,
        security,
        parameters: [idempotencyHeader],
        requestBody: jsonBody(ref(names.create)),
        responses: {
          '201': jsonResponse(envelope(ref(names.record)), 'Created'),
          '400': errorResponse('Validation failed'),
          ...writeErrors,
        },
      },
      get: {
        tags,
        summary: `List ${title} records`,
        operationId: `list${operationName}`,
        security,
        parameters: [...listParameters(schema), includeParameter],
        responses: {
          '200': jsonResponse(pageOf(ref(names.record)), 'A page of records'),
          '400': errorResponse('Invalid parameters'),
        },
      },
    },
    [`/api/${schema.path}/query`]: {
      post: {
        tags,
        summary: `Query ${title} records`,
        operationId: `query${operationName}`,
        security,
        requestBody: jsonBody(ref('Query')),
        responses: {
          '200': jsonResponse(pageOf(ref(names.fields)), 'Matching records (the selected fields only)'),
          '400': errorResponse('Invalid query'),
        },
      },
    },
    [`/api/${schema.path}/{id}`]: {
      get: {
        tags,
        summary: `Read a ${title} record`,
        operationId: `get${operationName}`,
        security,
        parameters: [idParameter, includeParameter],
        responses: { '200': jsonResponse(one, 'The record') },
      },
      patch: {
        tags,
        summary: `Update a ${title} record (optimistic locking on version)`,
        operationId: `update${operationName}`,
        security,
        parameters: [idParameter, idempotencyHeader],
        requestBody: jsonBody(ref(names.patch)),
        responses: {
          '200': jsonResponse(
            envelope(ref(names.fields)),
            'The id, changed fields, version, updated_at and updated_by',
          ),
          '400': errorResponse('Validation failed'),
          ...writeErrors,
          '409': errorResponse('Version mismatch, a unique value exists, or the key is in use'),
        },
      },
      delete: {
        tags,
        summary: `Soft-delete a ${title} record`,
        operationId: `delete${operationName}`,
        security,
        parameters: [idParameter, idempotencyHeader],
        responses: { '204': { description: 'Soft-deleted' }, ...writeErrors },
      },
    },
  };
}
