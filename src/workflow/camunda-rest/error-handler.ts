import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../platform/database/pool.js';
import { databaseInputFailure } from '../../platform/http/database-input-error.js';
import { classifyFrameworkError } from '../../platform/http/error-mapping.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { isServiceError } from '../../platform/http/service-error.js';
import { workflowErrorCatalogue } from '../errors.js';
import { CamundaErrors, toCamundaError, type CamundaError } from './camunda-errors.js';

function send(reply: FastifyReply, error: CamundaError): FastifyReply {
  if (error.headers) void reply.headers(error.headers);
  return reply.status(error.statusCode).send({ type: error.type, message: error.message, ...error.extra });
}

/**
 * Gives the `/engine-rest` scope Camunda's error bodies, `{type, message}`, for everything that
 * goes wrong in it: its own errors, weft's services' errors, framework failures (bad JSON,
 * validation, body too large) and unknown routes. An unexpected error is a 500 RestException that
 * names the request id only; it is logged with its stack.
 */
export function installCamundaErrors(scope: HttpServer): void {
  scope.setErrorHandler((error, request: FastifyRequest, reply) => {
    if (isServiceError(error)) return send(reply, toCamundaError(error));
    const known = workflowErrorCatalogue.fromError?.(error);
    if (known !== undefined) return send(reply, toCamundaError(known));
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return send(reply, CamundaErrors.rest(503, 'The database is unavailable'));
    }
    const refused = databaseInputFailure(error);
    if (refused !== null) {
      request.log.info({ err: error }, 'the database refused a value of the request');
      return send(reply, toCamundaError(workflowErrorCatalogue.fromFramework(refused)));
    }
    const failure = classifyFrameworkError(error);
    if (failure.kind === 'internal') {
      request.log.error({ err: error }, 'unhandled error');
      return send(reply, CamundaErrors.rest(500, `Internal server error (request id ${request.id})`));
    }
    return send(reply, toCamundaError(workflowErrorCatalogue.fromFramework(failure)));
  });
  scope.setNotFoundHandler((request, reply) =>
    send(reply, CamundaErrors.noRoute(request.method, request.url.split('?')[0] ?? '')),
  );
  // Camunda answers `application/json` without a charset, and its JavaScript client parses a body
  // only when the content type is exactly that.
  scope.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json'))
      reply.header('content-type', 'application/json');
    return payload;
  });
}
