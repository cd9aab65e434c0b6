import { fileURLToPath } from 'node:url';
import type { Config } from '../platform/config/index.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { migrate } from '../platform/database/migrate.js';
import type { Pool } from '../platform/database/pool.js';
import { createHttpServer, type HttpServer } from '../platform/http/index.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetricsRegistry } from '../platform/metrics/registry.js';
import { createRateLimitStore, type RateLimitStore } from '../platform/rate-limit/limiter.js';
import { AccessControl } from './access/access-control.js';
import { registerApiKeyRoutes } from './auth/api-key-routes.js';
import { Authenticator } from './auth/authenticator.js';
import { JwtVerifier } from './auth/jwt-verifier.js';
import { registerIdentityRoute } from './auth/identity-route.js';
import { registerOidcRoutes } from './auth/oidc/oidc-routes.js';
import { purgeEndedSessions } from './auth/oidc/oidc-sessions.js';
import { RecordsAuth } from './auth/records-auth.js';
import { AuthAuditLog } from './auth-audit/auth-audit-log.js';
import { registerAuthAuditRoutes } from './auth-audit/audit-routes.js';
import { registerRoleBindingRoutes } from './role-bindings/binding-routes.js';
import { recordsErrorCatalogue } from './errors.js';
import { ActorRateLimits } from './http/actor-rate-limits.js';
import { installAuthentication } from './http/authentication-hook.js';
import { instrumentOperations } from './http/operation-metrics.js';
import { registerPlatformRoutes } from './http/platform-routes.js';
import { registerRecordRoutes } from './http/record-routes.js';
import { ArchiveJob } from './archive/archive-job.js';
import { registerArchiveRoutes } from './archive/archive-routes.js';
import { registerAuditRoutes } from './audit/audit-routes.js';
import { registerHistoryRoutes } from './history/history-routes.js';
import { SnapshotJob } from './history/snapshot-job.js';
import { PostgresSearch } from './search/postgres-search.js';
import type { SearchBackend } from './search/search-backend.js';
import { registerSearchRoutes } from './search/search-routes.js';
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
  /** The seven access layers; built from each schema's `spec.access` by default. */
  access?: AccessControl;
  /** Where full-text search runs (Postgres by default). */
  search?: SearchBackend;
  /** How often to look for resources applied by other instances or the CLI (default 2 s). */
  schemaPollMilliseconds?: number;
  /** Fetch used for JWKS key sets (default: the global fetch). */
  fetcher?: typeof fetch;
}

/** A built records service. */
export interface RecordsService {
  app: HttpServer;
  registry: SchemaRegistry;
  /** Loads and watches resources; `syncFolder()` applies the folder now. */
  sync: SchemaSync;
  /** Hooks run inside every write's transaction. */
  pipeline: WritePipeline;
  /** Materialises history snapshots (`runPending()` drives it in tests). */
  snapshots: SnapshotJob;
  /** Moves due records to cold storage (`runOnce()` drives it in tests). */
  archive: ArchiveJob;
  /** Strategies, role bindings and the revocation set. */
  auth: RecordsAuth;
  /** The auth audit log (batched; `flush()` writes what is queued). */
  authAudit: AuthAuditLog;
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
  const jwtVerifier = new JwtVerifier(config.records.jwt);
  const auth = await RecordsAuth.create({
    pool,
    clock,
    logger,
    redisUrl: config.redisUrl,
    trustedProxies: config.records.trustedProxies,
    revocationPollMilliseconds: config.records.revocation.pollMilliseconds,
    revocationGraceMilliseconds: config.records.revocation.graceMilliseconds,
    secretEnvironment: config.records.secretEnvironment,
    fallback: { authenticator: new Authenticator(pool, jwtVerifier, clock), jwt: jwtVerifier },
    ...(deps.fetcher ? { fetcher: deps.fetcher } : {}),
  });
  const authAudit = new AuthAuditLog(pool, clock, logger);
  const sync = new SchemaSync({
    pool,
    registry,
    logger,
    directory: resources.directory,
    secrets: config.records.secretEnvironment,
    onReload: () => auth.reload(),
    ...(deps.schemaPollMilliseconds !== undefined ? { pollMilliseconds: deps.schemaPollMilliseconds } : {}),
  });
  const pipeline = new WritePipeline(pool);
  const cursors = new CursorCodec(await loadCursorKey(pool));
  const snapshots = new SnapshotJob(pool, registry, logger);
  const archive = new ArchiveJob({ pool, registry, clock, logger });

  const app = await createHttpServer({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    errors: recordsErrorCatalogue,
    metrics,
    openapi: { title: 'weft records', version: '1', description: 'Schema-driven records API' },
  });
  instrumentOperations(app, metrics);
  installAuthentication(
    app,
    auth.authenticator,
    new ActorRateLimits(rateLimitStore, config.records.rateLimits),
    authAudit,
  );
  const recordAccess = deps.access ?? new AccessControl({ clock });
  await app.register((scope) => {
    registerPlatformRoutes(scope, { pool, registry, metrics, isReady: () => sync.isReady });
    registerOidcRoutes(scope, { pool, clock, strategies: () => auth.oidcStrategies() });
    registerIdentityRoute(scope);
    registerAuthAuditRoutes(scope, { pool, audit: authAudit });
    registerRoleBindingRoutes(scope, { pool, publish: () => auth.publish() });
    registerApiKeyRoutes(scope, { pool, logger });
    registerRecordRoutes(scope, { pool, registry, access: recordAccess, pipeline, cursors });
    registerHistoryRoutes(scope, { pool, registry, access: recordAccess, pipeline, cursors, snapshots });
    registerAuditRoutes(scope, { pool, registry, access: recordAccess });
    registerArchiveRoutes(scope, { pool, registry, access: recordAccess, pipeline });
    registerSearchRoutes(scope, {
      pool,
      registry,
      access: recordAccess,
      backend: deps.search ?? new PostgresSearch(pool),
    });
    return Promise.resolve();
  });
  await app.ready();
  await sync.start();
  snapshots.start();
  archive.start();
  await auth.start();

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(pool).catch((error: unknown) =>
      logger.warn({ err: error }, 'idempotency purge failed'),
    );
    purgeEndedSessions(pool).catch((error: unknown) => logger.warn({ err: error }, 'session purge failed'));
  }, 3_600_000);
  purge.unref();
  return {
    app,
    registry,
    sync,
    pipeline,
    snapshots,
    archive,
    auth,
    authAudit,
    close: async () => {
      clearInterval(purge);
      await snapshots.close();
      await archive.close();
      sync.close();
      await app.close();
      await authAudit.close();
      await auth.close();
      if (!deps.rateLimitStore) await rateLimitStore.close();
    },
  };
}
