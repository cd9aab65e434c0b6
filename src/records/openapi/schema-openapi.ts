import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { bodySchemas, fieldJsonSchema } from '../schemas/field-json-schema.js';

type Json = Record<string, unknown>;

function componentName(schema: CompiledSchema): string {
  return schema.path
    .split(/[/-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('RecordsError') } },
});
const json = (schema: Json, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const envelope = (data: Json, extra: Json = {}): Json => ({
  type: 'object',
  required: ['data', 'status', 'requestId'],
  properties: {
    data,
    ...extra,
    status: { type: 'string', enum: ['success'] },
    requestId: { type: 'string' },
  },
});

function recordSchema(schema: CompiledSchema): Json {
  const properties: Json = {
    id: { type: 'string', format: 'uuid' },
    created_at: { type: 'string', format: 'date-time' },
    created_by: { type: 'string' },
    updated_at: { type: 'string', format: 'date-time' },
    updated_by: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    deleted_at: { type: 'string', format: 'date-time', nullable: true },
  };
  for (const field of schema.definition.fields) {
    const base = fieldJsonSchema(field);
    properties[field.name] = field.required || field.type === 'json' ? base : { ...base, nullable: true };
  }
  return {
    type: 'object',
    required: ['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'version'],
    properties,
  };
}

/** OpenAPI 3.0 has `nullable`, not `anyOf [x, null]`; rewrite the request schemas for it. */
function toOpenApi30(body: Json, schema: CompiledSchema): Json {
  const properties = { ...(body.properties as Json) };
  for (const field of schema.definition.fields) {
    const base = fieldJsonSchema(field);
    properties[field.name] = field.required || field.type === 'json' ? base : { ...base, nullable: true };
  }
  return { ...body, properties };
}

function pathsFor(schema: CompiledSchema, name: string): Json {
  const tag = schema.path;
  const security = [{ bearer: [] }, { apiKey: [] }];
  const pathParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const idempotency = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: 255 },
  };
  const listParameters = [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
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
  const common = {
    '401': errorResponse('Invalid token'),
    '403': errorResponse('Access denied'),
    '404': errorResponse('Not found'),
    '429': errorResponse('Rate limited'),
  };
  const page = envelope({ type: 'array', items: ref(`${name}Record`) }, { pagination: ref('Pagination') });
  return {
    [`/api/${schema.path}`]: {
      post: {
        tags: [tag],
        summary: `Create a ${schema.definition.displayName} record`,
        operationId: `create${name}`,
        security,
        parameters: [idempotency],
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}Create`) } } },
        responses: {
          '201': json(envelope(ref(`${name}Record`)), 'Created'),
          '400': errorResponse('Validation failed'),
          '409': errorResponse('Unique value exists'),
          '422': errorResponse('Idempotency key reused with another body'),
          ...common,
        },
      },
      get: {
        tags: [tag],
        summary: `List ${schema.definition.displayName} records`,
        operationId: `list${name}`,
        security,
        parameters: listParameters,
        responses: {
          '200': json(page, 'A page of records'),
          '400': errorResponse('Invalid parameters'),
          ...common,
        },
      },
    },
    [`/api/${schema.path}/query`]: {
      post: {
        tags: [tag],
        summary: `Query ${schema.definition.displayName} records`,
        operationId: `query${name}`,
        security,
        requestBody: { required: true, content: { 'application/json': { schema: ref('Query') } } },
        responses: {
          '200': json(page, 'Matching records'),
          '400': errorResponse('Invalid query'),
          ...common,
        },
      },
    },
    [`/api/${schema.path}/{id}`]: {
      get: {
        tags: [tag],
        operationId: `get${name}`,
        security,
        parameters: [pathParam],
        responses: { '200': json(envelope(ref(`${name}Record`)), 'The record'), ...common },
      },
      patch: {
        tags: [tag],
        operationId: `update${name}`,
        security,
        parameters: [pathParam, idempotency],
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}Patch`) } } },
        responses: {
          '200': json(
            envelope({ type: 'object', additionalProperties: true }),
            'Changed fields, version, updated_at, updated_by',
          ),
          '400': errorResponse('Validation failed'),
          '409': errorResponse('Version mismatch or unique value exists'),
          ...common,
        },
      },
      delete: {
        tags: [tag],
        operationId: `delete${name}`,
        security,
        parameters: [pathParam, idempotency],
        responses: { '204': { description: 'Soft-deleted' }, ...common },
      },
    },
  };
}

const sharedComponents: Json = {
  RecordsError: {
    type: 'object',
    required: ['code', 'message', 'requestId', 'details'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      requestId: { type: 'string' },
      details: { type: 'object', additionalProperties: true },
    },
  },
  Pagination: {
    type: 'object',
    properties: {
      limit: { type: 'integer' },
      offset: { type: 'integer' },
      total: { type: 'integer' },
      cursor: { type: 'string', nullable: true },
      has_more: { type: 'boolean' },
    },
  },
  Query: {
    type: 'object',
    properties: {
      where: {
        type: 'object',
        additionalProperties: true,
        description: '{field, op, value} or {and|or: [...]} or {not: {...}}',
      },
      select: { type: 'array', items: { type: 'string' } },
      sort: {
        type: 'array',
        items: {
          type: 'object',
          properties: { field: { type: 'string' }, direction: { type: 'string', enum: ['asc', 'desc'] } },
        },
      },
      limit: { type: 'integer', minimum: 1, maximum: 1000 },
      cursor: { type: 'string' },
    },
  },
};

/** The service's OpenAPI document: the platform routes plus every served schema's endpoints. */
export function buildOpenApi(base: Json, schemas: CompiledSchema[]): Json {
  const paths: Json = { ...(base.paths as Json | undefined) };
  const components = (base.components as Json | undefined) ?? {};
  const componentSchemas: Json = { ...(components.schemas as Json | undefined), ...sharedComponents };
  for (const schema of schemas) {
    const name = componentName(schema);
    const bodies = bodySchemas(schema.definition.fields);
    componentSchemas[`${name}Record`] = recordSchema(schema);
    componentSchemas[`${name}Create`] = toOpenApi30(bodies.create, schema);
    componentSchemas[`${name}Patch`] = toOpenApi30(bodies.patch, schema);
    Object.assign(paths, pathsFor(schema, name));
  }
  return {
    ...base,
    paths,
    components: {
      ...components,
      schemas: componentSchemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}
