import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import etag from '@fastify/etag';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import type { Logger } from '../logging/logger.js';
import { isDatabaseUnavailable } from '../database/pool.js';
import { instrumentHttp } from '../metrics/http-metrics.js';
import { withBodyDeadline } from './body-timeout.js';
import { clientErrorResponder } from './client-error.js';
import { databaseInputFailure } from './database-input-error.js';
import { classifyFrameworkError } from './error-mapping.js';
import { inexactNumberFailure, inexactNumbersOf, parseJsonNotingInexactNumbers } from './exact-json-body.js';
import { DEFAULT_MAX_JSON_DEPTH, findHostileInput } from './input-guard.js';
import type { ErrorCatalogue } from './error-catalogue.js';
import { requestIdFor } from './request-id.js';
import { requestLogger } from './request-log.js';
import { createValidatorCompiler } from './validation.js';
import type { HttpServer } from './http-server.js';
import { isServiceError, type ServiceError } from './service-error.js';

/**
 * Whether the whole body announced by Content-Length already sits in the request's buffer (a small
 * body arriving with its headers, the usual case): no deadline is needed, and none is paid for.
 */
function bodyAlreadyBuffered(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return length !== undefined && raw.readableLength >= Number(length);
}

/** Options of createHttpServer. */
export interface HttpServerOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a request may carry (default 128); deeper gets 400. */
  maxJsonDepth?: number;
  errors: ErrorCatalogue;
  metrics: Registry;
  openapi: { title: string; version: string; description: string };
  /** How long a client may take to send its request (defaults: 10 s for headers, 10 s for a body). */
  timeouts?: { headersTimeoutMs: number; bodyTimeoutMs: number };
}

const defaultTimeouts = { headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000 };
// Node's own whole-request limit stays behind ours (it answers a bare 408 and closes): a backstop.
const nodeBackstopMarginMs = 5_000;

/**
 * Builds a Fastify server with what every weft service shares: request ids, JSON Schema validation
 * that also feeds the OpenAPI document, one error handler, a body limit, and HTTP metrics. Every
 * request is refused with 400 before validation when any string in it holds a NUL or an unpaired
 * surrogate or its body nests too deep, and when its body has a number a 64-bit float cannot hold
 * exactly (unless its route stores those exactly); PostgreSQL errors a request's values caused are
 * 400 too.
 */
export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  // Typed as Fastify's logger interface so the instance type stays the plain HttpServer.
  const loggerInstance: FastifyBaseLogger = requestLogger(options.logger);
  const timeouts = options.timeouts ?? defaultTimeouts;
  const requestTimeout = timeouts.headersTimeoutMs + timeouts.bodyTimeoutMs + nodeBackstopMarginMs;
  const app = Fastify({
    loggerInstance,
    bodyLimit: options.bodyLimitBytes,
    // Node closes a connection whose headers (or whole request) do not arrive in time; it checks
    // every `connectionsCheckingInterval`. Both cover receiving the request only: a long poll that
    // waits for tasks after its body arrived is not cut short. No idle-socket timeout for that reason.
    requestTimeout,
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout,
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs),
    },
    genReqId: requestIdFor,
    return503OnClosing: true,
    clientErrorHandler: clientErrorResponder(options.errors),
    // Long path segments (a 200-character decision key, a hostile id) get the service's 400 body
    // rather than Fastify's own 414.
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: (error, request, reply) => {
      const failure = options.errors.fromFramework({
        kind: 'client-error',
        statusCode: 400,
        message: error.message,
      });
      void (reply as unknown as FastifyReply).status(400).send(options.errors.render(failure, request.id));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  parseJsonNotingInexactNumbers(app);

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });

  // A body that has not fully arrived within the body timeout is a 408 with the error body, and
  // the connection is closed (what is left of the body is never read).
  app.addHook('preParsing', (request, reply, payload, done) => {
    const { headers } = request;
    const hasBody = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
    if (!hasBody || request.raw.complete || bodyAlreadyBuffered(request.raw)) return done(null, payload);
    const timed = withBodyDeadline(payload, timeouts.bodyTimeoutMs, () => {
      void reply.header('connection', 'close');
    });
    // Answered without reading the body (a 404, a refusal in a hook): the deadline no longer matters.
    reply.raw.once('close', () => timed.destroy());
    done(null, timed);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: options.openapi,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
    },
  });

  instrumentHttp(app, options.metrics);
  // Every answer carries an ETag of its body; a client that sends it back in If-None-Match gets
  // 304 with no body when nothing changed (the consoles poll their lists and open pages so).
  await app.register(etag, { weak: true });

  const { errors } = options;
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  app.addHook('preValidation', (request, _reply, done) => {
    const { params, query: querystring, headers, body } = request;
    const hostile = findHostileInput({ params, querystring, headers, body }, maxJsonDepth);
    if (hostile !== null) return done(errors.fromFramework(hostile));
    // Never rounded silently: only a route that stores such numbers exactly takes them.
    const inexact = inexactNumbersOf(request);
    if (inexact !== undefined && request.routeOptions.config.exactNumbers !== true)
      return done(errors.fromFramework(inexactNumberFailure(inexact)));
    done();
  });

  const send = (request: FastifyRequest, reply: FastifyReply, error: ServiceError) => {
    if (error.headers) void reply.headers(error.headers);
    return reply.status(error.statusCode).send(errors.render(error, request.id));
  };

  app.setErrorHandler((error, request, reply) => {
    if (isServiceError(error)) return send(request, reply, error);
    const known = errors.fromError?.(error);
    if (known !== undefined) {
      // A known 5xx (an unreachable dependency) is the operator's business: logged with its cause,
      // which such errors keep free of secrets (an object store's names operation, location, code).
      if (known.statusCode >= 500)
        request.log.warn({ err: error, code: known.code }, 'dependency unavailable');
      return send(request, reply, known);
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return send(request, reply, errors.unavailable());
    }
    const refused = databaseInputFailure(error);
    if (refused !== null) {
      request.log.info({ err: error }, 'the database refused a value of the request');
      return send(request, reply, errors.fromFramework(refused));
    }
    const failure = classifyFrameworkError(error);
    if (failure.kind === 'internal') {
      request.log.error({ err: error }, 'unhandled error');
      return send(request, reply, errors.internal());
    }
    return send(request, reply, errors.fromFramework(failure));
  });

  app.setNotFoundHandler((request, reply) =>
    send(request, reply, errors.notFound(request.method, request.url)),
  );

  return app;
}
