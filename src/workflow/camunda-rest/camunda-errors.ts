import { ServiceError } from '../../platform/http/service-error.js';

/**
 * The exception names Camunda 7's REST API puts in the `type` of its error bodies, as far as weft
 * answers with them.
 */
export type CamundaExceptionType =
  | 'InvalidRequestException'
  | 'AuthenticationException'
  | 'AuthorizationException'
  | 'NotFoundException'
  | 'ParseException'
  | 'RestException'
  | 'TaskAlreadyClaimedException';

/** An error of the `/engine-rest` API: rendered as Camunda renders its own, `{type, message}`. */
export class CamundaError extends ServiceError {
  constructor(
    statusCode: number,
    readonly type: CamundaExceptionType,
    message: string,
    headers?: Readonly<Record<string, string>>,
    /** Fields of the body besides `type` and `message` (a ParseException's `details`). */
    readonly extra?: Readonly<Record<string, unknown>>,
  ) {
    super(statusCode, type, message, undefined, headers);
  }
}

/** The realm `/engine-rest` names when it asks for credentials. */
export const basicRealm = 'weft';

/** The errors `/engine-rest` answers with, by occasion (docs/workflow/camunda7.md). */
export const CamundaErrors = {
  /** Bad input: a malformed body, a missing field, an unsupported variable type. */
  invalid: (message: string) => new CamundaError(400, 'InvalidRequestException', message),
  /** An entity named in the request does not exist (Camunda: InvalidRequestException with 404). */
  notFound: (message: string) => new CamundaError(404, 'InvalidRequestException', message),
  /** No such route. */
  noRoute: (method: string, path: string) =>
    new CamundaError(404, 'NotFoundException', `No resource ${method} ${path}`),
  unauthenticated: (message = 'Authentication required: a Bearer token or HTTP Basic credentials') =>
    new CamundaError(401, 'AuthenticationException', message, {
      'www-authenticate': `Basic realm="${basicRealm}"`,
    }),
  forbidden: (message: string) => new CamundaError(403, 'AuthorizationException', message),
  /** Any other status weft answers with (408, 413, 415, 429, 500, 503). */
  rest: (statusCode: number, message: string, headers?: Readonly<Record<string, string>>) =>
    new CamundaError(statusCode, 'RestException', message, headers),
} as const;

/**
 * The Camunda form of an error weft's own services threw. weft's 409 (a lock another worker holds or
 * that expired, a suspended instance) is Camunda's 400: its external-task endpoints answer a
 * report by a worker that does not hold the lock so.
 */
export function toCamundaError(error: ServiceError): CamundaError {
  if (error instanceof CamundaError) return error;
  switch (error.statusCode) {
    case 400:
    case 409:
    case 422:
      return CamundaErrors.invalid(withDetails(error));
    case 401:
      return CamundaErrors.unauthenticated();
    case 403:
      return CamundaErrors.forbidden(error.message);
    case 404:
      return CamundaErrors.notFound(error.message);
    default:
      return CamundaErrors.rest(error.statusCode, error.message, error.headers);
  }
}

// Validation failures name their fields in details: Camunda's body has only a message, so they go there.
function withDetails(error: ServiceError): string {
  const errors = error.details?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return error.message;
  const listed = (errors as { path?: unknown; message?: unknown }[])
    .slice(0, 5)
    .map((issue) => `${String(issue.path)} ${String(issue.message)}`)
    .join('; ');
  return `${error.message}: ${listed}`;
}
