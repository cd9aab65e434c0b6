import Type from 'typebox';
import type { Registry } from 'prom-client';
import type { Pool } from '../../platform/database/pool.js';
import type { HttpServer } from '../../platform/http/http-server.js';
import { publicRoute } from '../../platform/http/route-config.js';

const Health = Type.Object({
  status: Type.Enum(['ok', 'error']),
  database: Type.Enum(['ok', 'unreachable']),
});

/**
 * The public GET /health and GET /metrics (the spec's public set), and GET /api/v1/openapi.json, which
 * the spec does not list as public and so needs a token like every other endpoint.
 */
export function registerOperationsRoutes(app: HttpServer, pool: Pool, metrics: Registry): void {
  app.get(
    '/health',
    {
      ...publicRoute,
      schema: {
        tags: ['operations'],
        summary: 'Liveness plus a database round trip',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const databaseUp = await pool.query('SELECT 1').then(
        () => true,
        () => false,
      );
      return databaseUp
        ? { status: 'ok' as const, database: 'ok' as const }
        : reply.status(503).send({ status: 'error', database: 'unreachable' });
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
