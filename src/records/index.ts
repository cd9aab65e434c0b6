import { fileURLToPath } from 'node:url';
import type { Config } from '../platform/config/index.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { migrate } from '../platform/database/migrate.js';
import type { Pool } from '../platform/database/pool.js';
import { createHttpServer, type HttpServer } from '../platform/http/index.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetricsRegistry } from '../platform/metrics/registry.js';
import { createRateLimitStore, type RateLimitStore } from '../platform/rate-limit/limiter.js';
import { roleAccessCheck, type AccessCheck } from './auth/access-check.js';
import { Authenticator } from './auth/authenticator.js';
import { JwtVerifier } from './auth/jwt-verifier.js';
import { recordsErrorCatalogue } from './errors.js';
import { ActorRateLimits } from './http/actor-rate-limits.js';
import { installAuthentication } from './http/authentication-hook.js';
import { instrumentOperations } from './http/operation-metrics.js';
import { registerPlatformRoutes } from './http/platform-routes.js';
import { registerRecordRoutes } from './http/record-routes.js';
import { purgeExpiredIdempotencyKeys } from './idempotency/idempotency-store.js';
import { CursorCodec } from './records/cursor.js';
import { loadCursorKey } from './records/cursor-key.js';
import { WritePipeline } from './records/write-pipeline.js';
import { resolveResourcesDir } from './schemas/examples-dir.js';
import { SchemaRegistry } from './schemas/schema-registry.js';
import { SchemaSync } from './schemas/schema-sync.js';

/** Folder of the records service's SQL migrations. */
export const recordsMigrationsDir = fileURLToPath(new URL('../../migrations/records', import.meta.url));

/** What the records service needs from its host process. */
export interface RecordsServiceDependencies {
  config: Config;
  pool: Pool;
  logger: Logger;
  /** Shared rate-limit counters (Redis or in-process); an in-process store when omitted. */
  rateLimitStore?: RateLimitStore;
  clock?: Clock;
  /** The access-check stage; route RBAC from `spec.access.roles` by default. */
  access?: AccessCheck;
  /** How often to look for resources applied by other instances or the CLI (default 2 s). */
  schemaPollMilliseconds?: number;
}

/** A built records service. */
export interface RecordsService {
  app: HttpServer;
  registry: SchemaRegistry;
  /** Loads and watches resources; `syncFolder()` applies the folder now. */
  sync: SchemaSync;
  /** Hooks run inside every write's transaction. */
  pipeline: WritePipeline;
  close(): Promise<void>;
}

/** Applies the records migrations. */
export async function prepareRecordsDatabase(pool: Pool, logger: Logger): Promise<void> {
  await migrate(pool, 'records', recordsMigrationsDir, logger);
}

/**
 * Builds the records service: loads the resources (the folder, else the bundled examples), then
 * serves the platform endpoints and every schema's CRUD and query API under `/api`.
 */
export async function createRecordsService(deps: RecordsServiceDependencies): Promise<RecordsService> {
  const { config, pool } = deps;
  const logger = deps.logger.child({ service: 'records' });
  const clock = deps.clock ?? systemClock;
  const metrics = createMetricsRegistry('records');
  const rateLimitStore = deps.rateLimitStore ?? createRateLimitStore(config.redisUrl, logger);
  const registry = new SchemaRegistry();
  const resources = resolveResourcesDir(config.records.resourcesDir);
  if (resources.examples)
    logger.info({ directory: resources.directory }, 'no ./resources folder: serving the bundled examples');
  const sync = new SchemaSync({
    pool,
    registry,
    logger,
    directory: resources.directory,
    ...(deps.schemaPollMilliseconds !== undefined ? { pollMilliseconds: deps.schemaPollMilliseconds } : {}),
  });
  const pipeline = new WritePipeline(pool);
  const cursors = new CursorCodec(await loadCursorKey(pool));

  const app = await createHttpServer({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    errors: recordsErrorCatalogue,
    metrics,
    openapi: { title: 'weft records', version: '1', description: 'Schema-driven records API' },
  });
  instrumentOperations(app, metrics);
  const authenticator = new Authenticator(pool, new JwtVerifier(config.records.jwt), clock);
  installAuthentication(app, authenticator, new ActorRateLimits(rateLimitStore, config.records.rateLimits));
  await app.register((scope) => {
    registerPlatformRoutes(scope, { pool, registry, metrics, isReady: () => sync.isReady });
    registerRecordRoutes(scope, {
      pool,
      registry,
      access: deps.access ?? roleAccessCheck,
      pipeline,
      cursors,
    });
    return Promise.resolve();
  });
  await app.ready();
  await sync.start();

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(pool).catch((error: unknown) =>
      logger.warn({ err: error }, 'idempotency purge failed'),
    );
  }, 3_600_000);
  purge.unref();
  return {
    app,
    registry,
    sync,
    pipeline,
    close: async () => {
      clearInterval(purge);
      sync.close();
      await app.close();
      if (!deps.rateLimitStore) await rateLimitStore.close();
    },
  };
}
