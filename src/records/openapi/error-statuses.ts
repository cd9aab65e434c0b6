import { errorResponse, type Json } from './openapi-parts.js';

const methods = ['get', 'post', 'put', 'patch', 'delete'];

// Answers any route can give: bad input anywhere in the request (a NUL, too deep, a value
// PostgreSQL refuses), an unexpected failure, an unreachable database.
const everywhere: Json = {
  '400': errorResponse('Invalid request'),
  '500': errorResponse('Unexpected error (INTERNAL_ERROR)'),
  '503': errorResponse('Database or revocation store unavailable'),
};
// Answers of every route that needs credentials.
const authenticated: Json = {
  '401': errorResponse('Missing, invalid or expired credentials, or a missing scope'),
  '403': errorResponse('Access denied'),
  '404': errorResponse('Schema, record or route not found'),
  '429': errorResponse('Rate limited (X-RateLimit-Reset, Retry-After)'),
};
// Answers of a request with a body.
const withBody: Json = {
  '413': errorResponse('Body too large'),
  '415': errorResponse('Body is not JSON'),
};

function isPublic(operation: Json): boolean {
  const security = operation.security as unknown[] | undefined;
  return !Array.isArray(security) || security.length === 0;
}

/**
 * Adds to every operation of `paths` the error answers its route can give besides those it
 * documents itself, each in the error body, so a client (or a validator) finds every status
 * listed. Operations without a security requirement are public: they say so (`security: []`)
 * and get no 401/403/404/429.
 */
export function withErrorStatuses(paths: Json): Json {
  const completed: Json = {};
  for (const [path, item] of Object.entries(paths)) {
    const next: Json = { ...(item as Json) };
    for (const method of methods) {
      const operation = next[method] as Json | undefined;
      if (!operation) continue;
      const body = operation.requestBody !== undefined || method !== 'get';
      next[method] = {
        ...operation,
        security: operation.security ?? [],
        responses: {
          ...everywhere,
          ...(isPublic(operation) ? {} : authenticated),
          ...(body ? withBody : {}),
          ...(operation.responses as Json | undefined),
        },
      };
    }
    completed[path] = next;
  }
  return completed;
}
