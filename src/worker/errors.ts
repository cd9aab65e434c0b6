/** The engine answered a request with an error status; `code` and `message` come from its body. */
export class ExternalTaskApiError extends Error {
  override readonly name = 'ExternalTaskApiError';

  constructor(
    /** The HTTP status, e.g. 409 when another worker holds the lock or it expired. */
    readonly status: number,
    /** The engine's stable error code, e.g. `U409`; `HTTP_<status>` when the body had none. */
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** From a `Retry-After` header, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The request did not get an answer: connection refused or reset, DNS failure, or timeout. */
export class ExternalTaskNetworkError extends Error {
  override readonly name = 'ExternalTaskNetworkError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True for failures worth trying again later: no answer, 408, 429 or a 5xx status. */
export function isTransientError(error: unknown): boolean {
  if (error instanceof ExternalTaskNetworkError) return true;
  if (error instanceof ExternalTaskApiError) {
    return error.status === 408 || error.status === 429 || error.status >= 500;
  }
  return false;
}
