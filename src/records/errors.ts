import type { ErrorCatalogue } from '../platform/http/create-server.js';
import { ServiceError } from '../platform/http/service-error.js';

/**
 * The records service's error catalogue: the spec's codes, rendered as
 * `{code, message, requestId, details}`.
 */
export const RecordsErrors = {
  validation: (message: string, details: Record<string, unknown> = {}) =>
    new ServiceError(400, 'VALIDATION_ERROR', message, details),
  invalidToken: () => new ServiceError(401, 'AUTH_INVALID_TOKEN', 'The token is missing, expired or invalid'),
  notFound: (message: string, details: Record<string, unknown> = {}) =>
    new ServiceError(404, 'NOT_FOUND', message, details),
  payloadTooLarge: (message: string) => new ServiceError(413, 'PAYLOAD_TOO_LARGE', message),
  unsupportedMediaType: (message: string) => new ServiceError(415, 'UNSUPPORTED_MEDIA_TYPE', message),
  internal: () => new ServiceError(500, 'INTERNAL_ERROR', 'Internal server error'),
  databaseUnavailable: () => new ServiceError(503, 'POSTGRES_UNAVAILABLE', 'The database is unavailable'),
} as const;

/** How the records HTTP server renders errors. */
export const recordsErrorCatalogue: ErrorCatalogue = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'validation':
        return RecordsErrors.validation(failure.message, { errors: failure.errors });
      case 'malformed-body':
        return RecordsErrors.validation(failure.message);
      case 'body-too-large':
        return RecordsErrors.payloadTooLarge(failure.message);
      case 'unsupported-media-type':
        return RecordsErrors.unsupportedMediaType(failure.message);
      case 'client-error':
        return new ServiceError(failure.statusCode, 'BAD_REQUEST', failure.message);
    }
  },
  notFound: (method, url) => RecordsErrors.notFound(`No route ${method} ${url.split('?')[0] ?? ''}`),
  internal: () => RecordsErrors.internal(),
  unavailable: () => RecordsErrors.databaseUnavailable(),
  render: (error, requestId) => ({
    code: error.code,
    message: error.message,
    requestId,
    details: error.details ?? {},
  }),
};
