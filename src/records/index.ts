import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import type { Config } from '../platform/config/index.js';
import { migrate } from '../platform/database/migrate.js';
import type { Pool } from '../platform/database/pool.js';
import { createHttpServer, publicRoute, type HttpServer } from '../platform/http/index.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetricsRegistry } from '../platform/metrics/registry.js';
import { buildInfo } from '../platform/build-info.js';
import { recordsErrorCatalogue } from './errors.js';

/** Folder of the records service's SQL migrations. */
export const recordsMigrationsDir = fileURLToPath(new URL('../../migrations/records', import.meta.url));

/** What the records service needs from its host process. */
export interface RecordsServiceDependencies {
  config: Config;
  pool: Pool;
  logger: Logger;
}

/** A built records service. */
export interface RecordsService {
  app: HttpServer;
  close(): Promise<void>;
}

/** Applies the records migrations. */
export async function prepareRecordsDatabase(pool: Pool, logger: Logger): Promise<void> {
  await migrate(pool, 'records', recordsMigrationsDir, logger);
}

const Probe = Type.Object({ status: Type.String(), database: Type.String() });

/**
 * Builds the records service. For now it answers its platform probes (version, health, readiness,
 * metrics, OpenAPI); the schema-driven API is added on top of this entry point.
 */
export async function createRecordsService(deps: RecordsServiceDependencies): Promise<RecordsService> {
  const logger = deps.logger.child({ service: 'records' });
  const metrics = createMetricsRegistry('records');
  const app = await createHttpServer({
    logger,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    errors: recordsErrorCatalogue,
    metrics,
    openapi: { title: 'weft records', version: '1', description: 'Schema-driven records API' },
  });
  const databaseUp = () =>
    deps.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );

  const probeSchema = { tags: ['platform'], response: { 200: Probe, 503: Probe } };
  app.get(
    '/api/healthz',
    { ...publicRoute, schema: { ...probeSchema, summary: 'Load balancer probe' } },
    async (_r, reply) =>
      (await databaseUp())
        ? { status: 'ok', database: 'ok' }
        : reply.status(503).send({ status: 'unavailable', database: 'unreachable' }),
  );
  app.get(
    '/api/readyz',
    { ...publicRoute, schema: { ...probeSchema, summary: 'Ready once schemas are loaded' } },
    async (_r, reply) =>
      (await databaseUp())
        ? { status: 'ready', database: 'ok' }
        : reply.status(503).send({ status: 'not_ready', database: 'unreachable' }),
  );
  app.get(
    '/api/version',
    {
      ...publicRoute,
      schema: {
        tags: ['platform'],
        summary: 'Build information',
        response: {
          200: Type.Object({
            client_version: Type.String(),
            server_version: Type.String(),
            build_date: Type.String(),
            git_commit: Type.String(),
          }),
        },
      },
    },
    () => buildInfo(),
  );
  app.get('/api/metrics', { ...publicRoute, schema: { hide: true } }, async (_r, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
  app.get('/api/openapi.json', { ...publicRoute, schema: { hide: true } }, () => app.swagger());
  await app.ready();
  return { app, close: () => app.close() };
}
