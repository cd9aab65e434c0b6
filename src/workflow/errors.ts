import type { ErrorCatalogue } from '../platform/http/error-catalogue.js';
import { ServiceError } from '../platform/http/service-error.js';
import { EngineCallError } from './engine/driver/driver-errors.js';

/**
 * The workflow service's error catalogue. Every non-2xx response has the body
 * `{code, message, details?}`; codes are stable and documented in docs/workflow/errors.md.
 */
export const WorkflowErrors = {
  validation: (message: string, details?: Record<string, unknown>) =>
    new ServiceError(400, 'U400', message, details),
  unauthenticated: () => new ServiceError(401, 'U401', 'Unauthenticated'),
  forbidden: (message = 'Forbidden') => new ServiceError(403, 'U403', message),
  notFound: (message = 'Not found') => new ServiceError(404, 'U404', message),
  conflict: (message: string, details?: Record<string, unknown>) =>
    new ServiceError(409, 'U409', message, details),
  /** An Idempotency-Key reused for a different request. */
  idempotencyConflict: (message: string) => new ServiceError(422, 'U422', message),
  payloadTooLarge: (message: string) => new ServiceError(413, 'U413', message),
  unsupportedMediaType: (message: string) => new ServiceError(415, 'U415', message),
  requestTimeout: (message: string) => new ServiceError(408, 'U408', message),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ServiceError(
      429,
      'U429',
      'Too many attempts; try again later',
      { retry_after_seconds: retryAfterSeconds },
      {
        'retry-after': String(retryAfterSeconds),
      },
    ),
  tooManyLongPolls: () =>
    new ServiceError(
      429,
      'U429',
      'Too many long polls of this client (or of this service) are waiting; retry shortly',
      { retry_after_seconds: 1 },
      { 'retry-after': '1' },
    ),
  internal: () => new ServiceError(500, 'U500', 'Internal server error'),
  unavailable: (message = 'The database is unavailable') => new ServiceError(503, 'U503', message),
} as const;

/** The HTTP answer to an engine refusal: 404, 400, or 409 (an ended instance, a lost race). */
export function engineCallErrorToHttp(error: EngineCallError): ServiceError {
  switch (error.kind) {
    case 'notFound':
      return WorkflowErrors.notFound(error.message);
    case 'invalid':
      return WorkflowErrors.validation(
        error.message,
        error.problems === undefined ? undefined : { problems: error.problems },
      );
    case 'conflict':
    case 'contention':
      return WorkflowErrors.conflict(error.message);
  }
}

/** How the workflow HTTP server renders errors. */
export const workflowErrorCatalogue: ErrorCatalogue = {
  fromFramework(failure) {
    switch (failure.kind) {
      case 'validation':
        return WorkflowErrors.validation(failure.message, { errors: failure.errors });
      case 'malformed-body':
        return WorkflowErrors.validation(failure.message);
      case 'body-too-large':
        return WorkflowErrors.payloadTooLarge(failure.message);
      case 'unsupported-media-type':
        return WorkflowErrors.unsupportedMediaType(failure.message);
      case 'request-timeout':
        return WorkflowErrors.requestTimeout(failure.message);
      case 'client-error':
        return new ServiceError(failure.statusCode, `U${failure.statusCode}`, failure.message);
    }
  },
  notFound: (method, url) => WorkflowErrors.notFound(`No route ${method} ${url.split('?')[0] ?? ''}`),
  internal: () => WorkflowErrors.internal(),
  unavailable: () => WorkflowErrors.unavailable(),
  fromError: (error) => (error instanceof EngineCallError ? engineCallErrorToHttp(error) : undefined),
  render(error, requestId) {
    const details = error.statusCode >= 500 ? { ...error.details, request_id: requestId } : error.details;
    return details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details };
  },
};
