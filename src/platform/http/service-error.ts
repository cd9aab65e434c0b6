/**
 * An error with a stable code, an HTTP status and optional details: the only kind of error a route
 * throws on purpose. Each service builds these through its own catalogue (`src/<service>/errors.ts`)
 * and renders them in its own error body.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** Tells a ServiceError from any other thrown value. */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}
