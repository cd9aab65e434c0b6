import type { Static } from 'typebox';
import type { Registry } from 'prom-client';
import { databaseAnswers, type Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { publicRoute } from '../../platform/http/route-config.js';
import type { ErrorBody } from '../common-schemas.js';
import { WorkflowErrors, workflowErrorCatalogue } from '../errors.js';
import { Health, Unhealthy } from './schemas.js';

/**
 * The public GET /health and GET /metrics (the spec's public set), and GET /api/v1/openapi.json, which
 * the spec does not list as public and so needs a token like every other endpoint. `/health` waits
 * at most `healthTimeoutMs` for the database, then answers 503 with the error body (U503).
 */
export function registerOperationsRoutes(
  app: HttpServer,
  pool: Pool,
  metrics: Registry,
  healthTimeoutMs: number,
): void {
  app.get(
    '/health',
    {
      ...publicRoute,
      schema: {
        tags: ['operations'],
        summary: 'Liveness plus a database round trip',
        response: { 200: Health, 503: Unhealthy },
      },
    },
    async (request, reply) => {
      if (await databaseAnswers(pool, healthTimeoutMs))
        return { status: 'ok' as const, database: 'ok' as const };
      const body = workflowErrorCatalogue.render(WorkflowErrors.unavailable(), request.id) as Static<
        typeof ErrorBody
      >;
      return reply.status(503).send({ ...body, status: 'error', database: 'unreachable' });
    },
  );

  app.get(
    '/metrics',
    { ...publicRoute, schema: { tags: ['operations'], summary: 'Prometheus exposition', hide: true } },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
  );

  app.get(
    '/api/v1/openapi.json',
    { schema: { tags: ['operations'], summary: 'This OpenAPI document', hide: true } },
    () => app.swagger(),
  );
}
