import { ObjectStoreUnavailableError } from './object-store.js';

/** What the AWS SDK puts on the errors it throws. */
interface SdkError {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

const unavailableNames = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'ServiceUnavailable',
  'InternalError',
]);

/** The HTTP status of an SDK error, when the server answered. */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as SdkError | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The error's name, for `NoSuchKey` and friends. */
export function errorNameOf(error: unknown): string | undefined {
  const name = (error as SdkError | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Whether the store could not be reached or could not serve: a network error, a timeout, a 5xx,
 * or throttling (429 and the S3 throttling codes).
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof ObjectStoreUnavailableError) return true;
  const status = httpStatusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  const code = (error as SdkError | null)?.code;
  if (typeof code === 'string' && networkCodes.has(code)) return true;
  return unavailableNames.has(errorNameOf(error) ?? '');
}

/**
 * Turns an SDK failure of `operation` into this module's errors: ObjectStoreUnavailableError when
 * the store is unavailable, else a plain Error (a refusal such as AccessDenied or NoSuchBucket,
 * which is a configuration problem). Messages name the operation, the error name or code and the
 * status, never the SDK's own message or the request.
 */
export function storeFailure(error: unknown, location: string, operation: string): Error {
  if (error instanceof ObjectStoreUnavailableError) return error;
  // Not from the SDK (a check of this module, a local file error): passed on as it is.
  if (error instanceof Error && !('$metadata' in error) && !isUnavailable(error)) return error;
  const status = httpStatusOf(error);
  const code = (error as SdkError | null)?.code;
  const reason = [
    errorNameOf(error),
    typeof code === 'string' ? code : undefined,
    status === undefined ? undefined : `HTTP ${status}`,
  ]
    .filter((part) => part !== undefined && part !== '' && part !== 'Error')
    .join(', ');
  const text = `${operation} on ${location} failed${reason === '' ? '' : ` (${reason})`}`;
  return isUnavailable(error)
    ? new ObjectStoreUnavailableError(`The archive store is unavailable: ${text}`)
    : new Error(`The archive store refused the request: ${text}`);
}
