import type { FastifyError } from 'fastify';

/** What kind of framework failure a thrown value is, so each service can render it with its own code. */
export type FrameworkFailure =
  | { kind: 'validation'; message: string; errors: { path: string; message: string }[] }
  | { kind: 'malformed-body'; message: string }
  | { kind: 'body-too-large'; message: string }
  | { kind: 'unsupported-media-type'; message: string }
  | { kind: 'request-timeout'; message: string }
  | { kind: 'client-error'; statusCode: number; message: string }
  | { kind: 'internal' };

/**
 * Classifies an error raised by Fastify or its parsers. Only 4xx framework errors are passed on
 * with their own message; anything else is internal and its text never reaches the client.
 */
export function classifyFrameworkError(error: unknown): FrameworkFailure {
  const fastifyError = error as Partial<FastifyError> | null;
  if (fastifyError?.validation) {
    const context = fastifyError.validationContext ?? 'request';
    const errors = fastifyError.validation.map((issue) => ({
      path: `${context}${issue.instancePath.replace(/\//g, '.')}` + missingPropertySuffix(issue.params),
      message: issue.message ?? 'is invalid',
    }));
    return { kind: 'validation', message: 'Request validation failed', errors };
  }
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { kind: 'malformed-body', message: 'The request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { kind: 'body-too-large', message: 'The request body is too large' };
    case 'WEFT_BODY_TIMEOUT':
      return {
        kind: 'request-timeout',
        message: fastifyError?.message ?? 'The request body did not arrive in time',
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { kind: 'unsupported-media-type', message: 'Unsupported content type; send application/json' };
  }
  if (error instanceof SyntaxError)
    return { kind: 'malformed-body', message: 'The request body is not valid JSON' };
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { kind: 'client-error', statusCode: status, message: fastifyError?.message ?? 'Bad request' };
  }
  return { kind: 'internal' };
}

function missingPropertySuffix(params: unknown): string {
  const missing = (params as { missingProperty?: unknown } | undefined)?.missingProperty;
  return typeof missing === 'string' ? `.${missing}` : '';
}
