import type { ErrorCatalogue } from '../platform/http/error-catalogue.js';
import { ServiceError } from '../platform/http/service-error.js';
import { ObjectStoreUnavailableError } from './archive/store/object-store.js';
import { DuckTimeoutError } from './archive/files/duck-engine.js';

/** One field of a request that failed validation, and why. */
export interface FieldProblem {
  field: string;
  reason: string;
}

/**
 * The records service's error catalogue: the spec's codes (plus the interface decisions' 429
 * `RATE_LIMITED`), rendered as `{code, message, requestId, details}`.
 */
export const RecordsErrors = {
  validation: (message: string, errors: FieldProblem[] = []) =>
    new ServiceError(400, 'VALIDATION_ERROR', message, { errors }),
  invalidToken: () => new ServiceError(401, 'AUTH_INVALID_TOKEN', 'The token is missing, expired or invalid'),
  insufficientScopes: (operation: string, missing: string[]) =>
    new ServiceError(
      401,
      'AUTH_INSUFFICIENT_SCOPES',
      `The credentials lack a scope that ${operation} requires`,
      { operation, missing_scopes: missing },
    ),
  rbacDenied: (operation: string, schemaPath: string) =>
    new ServiceError(403, 'RBAC_DENIED', `No role of the caller may ${operation} ${schemaPath}`, {
      operation,
      schema_path: schemaPath,
    }),
  abacDenied: (operation: string, schemaPath: string, message: string) =>
    new ServiceError(403, 'ABAC_DENIED', message, { operation, schema_path: schemaPath }),
  crossSchemaDenied: (field: string, schemaPath: string) =>
    new ServiceError(
      403,
      'CROSS_SCHEMA_ACCESS_DENIED',
      `No role of the caller may read ${schemaPath}, which ${field} refers to`,
      { field, schema_path: schemaPath },
    ),
  fieldWriteDenied: (schemaPath: string, fields: string[]) =>
    new ServiceError(403, 'FIELD_WRITE_DENIED', `The caller may not write ${fields.join(', ')}`, {
      schema_path: schemaPath,
      fields,
    }),
  rlsDenied: (schemaPath: string) =>
    new ServiceError(403, 'RLS_POLICY_DENIED', `Row-level security of ${schemaPath} rejected the change`, {
      schema_path: schemaPath,
    }),
  notFound: (message: string, details: Record<string, unknown> = {}) =>
    new ServiceError(404, 'NOT_FOUND', message, details),
  schemaNotFound: (schemaPath: string) =>
    new ServiceError(404, 'SCHEMA_NOT_FOUND', `No schema ${schemaPath}`, { schema_path: schemaPath }),
  entityNotFound: (schemaPath: string, id: string) =>
    new ServiceError(404, 'ENTITY_NOT_FOUND', `No record ${id} in ${schemaPath}`, {
      schema_path: schemaPath,
      id,
    }),
  uniqueViolation: (field: string) =>
    new ServiceError(409, 'UNIQUE_CONSTRAINT_VIOLATION', `Another record already has this ${field}`, {
      field,
    }),
  optimisticLock: (id: string, expected: number, current: number) =>
    new ServiceError(
      409,
      'OPTIMISTIC_LOCK_FAILED',
      `Record ${id} is at version ${current}, not ${expected}`,
      {
        id,
        expected_version: expected,
        current_version: current,
      },
    ),
  idempotencyInProgress: () =>
    new ServiceError(409, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running'),
  idempotencyConflict: () =>
    new ServiceError(
      422,
      'IDEMPOTENCY_CONFLICT',
      'This Idempotency-Key was used with a different request or under different access; use a new key',
    ),
  payloadTooLarge: (message: string) => new ServiceError(413, 'PAYLOAD_TOO_LARGE', message),
  unsupportedMediaType: (message: string) => new ServiceError(415, 'UNSUPPORTED_MEDIA_TYPE', message),
  rateLimited: (resetUnixSeconds: number, retryAfterSeconds: number) =>
    new ServiceError(
      429,
      'RATE_LIMITED',
      'Too many requests for this actor; retry later',
      {},
      {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetUnixSeconds),
        'retry-after': String(retryAfterSeconds),
      },
    ),
  internal: () => new ServiceError(500, 'INTERNAL_ERROR', 'Internal server error'),
  searchUnavailable: () =>
    new ServiceError(503, 'TYPESENSE_UNAVAILABLE', 'The search service is unavailable; retry later'),
  databaseUnavailable: () => new ServiceError(503, 'POSTGRES_UNAVAILABLE', 'The database is unavailable'),
  archiveStoreUnavailable: () =>
    new ServiceError(503, 'ARCHIVE_STORE_UNAVAILABLE', 'The archive store is unavailable; retry later'),
  requestTimeout: (message: string) => new ServiceError(408, 'REQUEST_TIMEOUT', message),
  notReady: () => new ServiceError(503, 'NOT_READY', 'The schemas are still loading'),
} as const;

// Codes of the requests Node's HTTP server or Fastify refuse before a route runs.
const clientErrorCodes: Readonly<Record<number, string>> = {
  408: 'REQUEST_TIMEOUT',
  414: 'URI_TOO_LONG',
  431: 'REQUEST_HEADERS_TOO_LARGE',
};

/** How the records HTTP server renders errors. */
export const recordsErrorCatalogue: ErrorCatalogue = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'validation':
        return RecordsErrors.validation(
          failure.message,
          failure.errors.map((error) => ({ field: error.path, reason: error.message })),
        );
      case 'malformed-body':
        return RecordsErrors.validation(failure.message);
      case 'body-too-large':
        return RecordsErrors.payloadTooLarge(failure.message);
      case 'unsupported-media-type':
        return RecordsErrors.unsupportedMediaType(failure.message);
      case 'request-timeout':
        return RecordsErrors.requestTimeout(failure.message);
      case 'client-error':
        return new ServiceError(
          failure.statusCode,
          clientErrorCodes[failure.statusCode] ?? 'BAD_REQUEST',
          failure.message,
        );
    }
  },
  notFound: (method, url) => RecordsErrors.notFound(`No route ${method} ${url.split('?')[0] ?? ''}`),
  internal: () => RecordsErrors.internal(),
  unavailable: () => RecordsErrors.databaseUnavailable(),
  fromError: (error) =>
    error instanceof ObjectStoreUnavailableError
      ? RecordsErrors.archiveStoreUnavailable()
      : error instanceof DuckTimeoutError
        ? RecordsErrors.databaseUnavailable()
        : undefined,
  render: (error, requestId) => ({
    code: error.code,
    message: error.message,
    requestId,
    details: error.details ?? {},
  }),
};
