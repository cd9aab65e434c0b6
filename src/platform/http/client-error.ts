import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCatalogue } from './error-catalogue.js';

/** What Node's HTTP parser reports before a request reaches Fastify, as status and message. */
function statusOf(error: NodeJS.ErrnoException): { statusCode: number; message: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return { statusCode: 431, message: 'The request headers are too large' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { statusCode: 408, message: 'The request did not arrive in time' };
  return { statusCode: 400, message: 'The request is not valid HTTP' };
}

/**
 * A `clientErrorHandler` for Fastify: requests Node's HTTP server refuses before any route runs
 * (headers too large → 431, unparsable request line or header → 400, request timeout → 408) are
 * answered in the service's error body with an `x-request-id`, not Fastify's own body.
 */
export function clientErrorResponder(errors: ErrorCatalogue) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has no one to answer (Node's own handler does the same).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const { statusCode, message } = statusOf(error);
      const requestId = randomUUID();
      const failure = errors.fromFramework({ kind: 'client-error', statusCode, message });
      const body = JSON.stringify(errors.render(failure, requestId));
      socket.write(
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? 'Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
