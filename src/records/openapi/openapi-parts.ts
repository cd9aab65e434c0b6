/** A fragment of the OpenAPI document. */
export type Json = Record<string, unknown>;

/** A reference to a component schema. */
export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A JSON response with `schema`. */
export const jsonResponse = (schema: Json, description: string): Json => ({
  description,
  content: { 'application/json': { schema } },
});

/** A response in the service's error body. */
export const errorResponse = (description: string): Json => jsonResponse(ref('RecordsError'), description);

/** The success envelope around `data`, with `extra` top-level properties (pagination, search_stats…). */
export const envelope = (data: Json, extra: Json = {}): Json => ({
  type: 'object',
  required: ['data', 'status', 'requestId'],
  properties: {
    data,
    ...extra,
    status: { type: 'string', enum: ['success'] },
    requestId: { type: 'string' },
  },
});

/** A JSON request body. */
export const jsonBody = (schema: Json): Json => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** Who may call a record route: a bearer token or an API key. */
export const recordSecurity = [{ bearer: [] }, { apiKey: [] }];

/** The `Idempotency-Key` header of writes. */
export const idempotencyHeader: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** A record id in the path. */
export const idParameter: Json = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
