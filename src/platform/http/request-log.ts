import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from '../logging/logger.js';
import { redactUrl } from '../logging/redact-url.js';

/** The parts of a request (Fastify's or Node's) that a request log line shows. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/**
 * Serialises `req` in request log lines as Fastify does, except that the URL has its credentials
 * removed (`?api_key=…`, `token`, `password`, `signature`, `code`…): a client that puts a key in
 * the query string must not find it in our logs.
 */
export function serializeRequest(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : undefined,
    version: req.headers?.['accept-version'],
    host: req.host ?? req.headers?.host,
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  };
}

/** The logger a service's HTTP server logs requests with: `logger` with the redacting serializer. */
export function requestLogger(logger: Logger): FastifyBaseLogger {
  return logger.child({}, { serializers: { req: serializeRequest } });
}
