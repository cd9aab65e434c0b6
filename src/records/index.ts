import { fileURLToPath } from 'node:url';
import type { Registry } from 'prom-client';
import type { Config } from '../platform/config/index.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { Ed25519Signer } from '../platform/crypto/ed25519-signer.js';
import { migrate } from '../platform/database/migrate.js';
import { grantApplicationRole } from '../platform/database/role-membership.js';
import { appRole } from './access/database-roles.js';
import type { Pool } from '../platform/database/pool.js';
import { createHttpServer, serveConsole, type HttpServer } from '../platform/http/index.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetricsRegistry } from '../platform/metrics/registry.js';
import { createRateLimitStore, type RateLimitStore } from '../platform/rate-limit/limiter.js';
import { AccessControl } from './access/access-control.js';
import { RecordReader } from './access/record-reader.js';
import { registerApiKeyRoutes } from './auth/api-key-routes.js';
import { Authenticator } from './auth/authenticator.js';
import { JwtVerifier } from './auth/jwt-verifier.js';
import { registerIdentityRoute } from './auth/identity-route.js';
import { registerOidcRoutes } from './auth/oidc/routes.js';
import { registerLoginStrategiesRoute } from './auth/oidc/strategies-route.js';
import { purgeEndedSessions } from './auth/oidc/oidc-sessions.js';
import { RecordsAuth } from './auth/records-auth.js';
import { AuthAuditLog } from './auth-audit/auth-audit-log.js';
import { registerAuthAuditRoutes } from './auth-audit/routes.js';
import { registerRoleBindingRoutes } from './role-bindings/routes.js';
import { recordsErrorCatalogue } from './errors.js';
import { ActorRateLimits } from './http/actor-rate-limits.js';
import { installAuthentication } from './http/authentication-hook.js';
import { instrumentOperations } from './http/operation-metrics.js';
import { registerPlatformRoutes } from './http/platform-routes.js';
import { registerRecordRoutes } from './crud/routes.js';
import { registerSchemaRoute } from './crud/schema-route.js';
import { RecordService } from './crud/record-service.js';
import { ArchiveJob } from './archive/archive-job.js';
import { ArchiveFiles } from './archive/files/archive-files.js';
import { DuckEngine } from './archive/files/duck-engine.js';
import { createObjectStore } from './archive/store/create-object-store.js';
import type { ObjectStore } from './archive/store/object-store.js';
import { registerArchiveRoutes } from './archive/routes.js';
import { registerErasureRoutes } from './erasure/routes.js';
import { finishInterruptedErasures } from './erasure/erase-record.js';
import { ArchiveService } from './archive/archive-service.js';
import { AuditAnchorJob } from './audit/anchor-job.js';
import { AuthAuditRetention } from './auth-audit/auth-audit-retention.js';
import { AnchorStore } from './audit/anchor-store.js';
import { registerAuditRoutes } from './audit/routes.js';
import { AuditService } from './audit/audit-service.js';
import { registerHistoryRoutes } from './history/routes.js';
import { HistoryService } from './history/history-service.js';
import { SnapshotJob } from './history/snapshot-job.js';
import { PostgresSearch } from './search/postgres-search.js';
import type { SearchBackend } from './search/search-backend.js';
import { registerSearchRoutes } from './search/routes.js';
import { SearchService } from './search/search-service.js';
import { purgeExpiredIdempotencyKeys } from './idempotency/idempotency-repository.js';
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
  /** The runtime login's pool: every request runs on it. */
  pool: Pool;
  /**
   * The owner login's pool: resource applies (DDL), row-security sync, the archive and snapshot
   * jobs and the cursor key. `pool` when omitted (one login that owns the tables).
   */
  ownerPool?: Pool;
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
  /** Where archive files live (default: the store `RECORDS_ARCHIVE_URL` names). */
  archiveStore?: ObjectStore;
}

/** A built records service. */
export interface RecordsService {
  app: HttpServer;
  registry: SchemaRegistry;
  /** Loads and watches resources; `syncFolder()` applies the folder now. */
  sync: SchemaSync;
  /** Runs every write (idempotency claim, write and stored response in one transaction). */
  pipeline: WritePipeline;
  /** Materialises history snapshots (`runPending()` drives it in tests). */
  snapshots: SnapshotJob;
  /** Moves due records to cold storage (`runOnce()` drives it in tests). */
  archive: ArchiveJob;
  /** The archive's Parquet files in object storage, as the jobs and erasure read them. */
  archiveFiles: ArchiveFiles;
  /** The same files as requests read them: DuckDB work bounded by the statement timeout. */
  requestArchiveFiles: ArchiveFiles;
  /** Strategies, role bindings and the revocation set. */
  auth: RecordsAuth;
  /** The auth audit log (batched; `flush()` writes what is queued). */
  authAudit: AuthAuditLog;
  /** Deletes auth audit entries past RECORDS_AUTH_AUDIT_RETENTION_DAYS (`runOnce()` in tests); undefined when unset. */
  authAuditRetention: AuthAuditRetention | undefined;
  /** Signs audit chain heads into the anchor store (`runOnce()` drives it in tests); undefined without a signing key. */
  auditAnchor: AuditAnchorJob | undefined;
  /** The service's Prometheus registry (`/api/metrics`, and the scrape listener of `RECORDS_METRICS_PORT`). */
  metrics: Registry;
  close(): Promise<void>;
}

/**
 * Applies the records migrations with the owner's pool, then makes `runtimeLogin` (the login
 * requests run as, when it is not the owner) a member of the least-privilege application role.
 */
export async function prepareRecordsDatabase(
  ownerPool: Pool,
  logger: Logger,
  runtimeLogin?: string,
): Promise<void> {
  await migrate(ownerPool, 'records', recordsMigrationsDir, logger);
  if (runtimeLogin !== undefined) await grantApplicationRole(ownerPool, appRole, runtimeLogin, logger);
}

/**
 * Builds the records service: loads the resources (the folder, else in development the bundled
 * examples), then serves the platform endpoints and every schema's CRUD and query API under `/api`.
 */
export async function createRecordsService(deps: RecordsServiceDependencies): Promise<RecordsService> {
  const { config, pool } = deps;
  const ownerPool = deps.ownerPool ?? pool;
  const logger = deps.logger.child({ service: 'records' });
  const clock = deps.clock ?? systemClock;
  const metrics = createMetricsRegistry('records');
  const rateLimitStore =
    deps.rateLimitStore ?? createRateLimitStore(config.redisUrl, logger, config.redisCommandTimeoutMs);
  const registry = new SchemaRegistry();
  const resources = resolveResourcesDir(config.records.resourcesDir, { production: config.production });
  if (resources.examples)
    logger.info({ directory: resources.directory }, 'no ./resources folder: serving the bundled examples');
  else if (resources.directory === undefined)
    logger.warn(
      'no ./resources folder and RECORDS_RESOURCES_DIR unset: serving only resources applied to the database',
    );
  const jwtVerifier = new JwtVerifier(config.records.jwt);
  const auth = await RecordsAuth.create({
    pool,
    clock,
    logger,
    redisUrl: config.redisUrl,
    redisCommandTimeoutMs: config.redisCommandTimeoutMs,
    trustedProxies: config.records.trustedProxies,
    revocationPollMilliseconds: config.records.revocation.pollMilliseconds,
    revocationGraceMilliseconds: config.records.revocation.graceMilliseconds,
    secretEnvironment: config.records.secretEnvironment,
    fallback: { authenticator: new Authenticator(pool, jwtVerifier, clock), jwt: jwtVerifier },
    ...(deps.fetcher ? { fetcher: deps.fetcher } : {}),
  });
  const authAudit = new AuthAuditLog(pool, clock, logger);
  const retentionDays = config.records.authAuditRetentionDays;
  // Deleting from the log is the owner's: the runtime login may only append to it.
  const authAuditRetention =
    retentionDays === undefined
      ? undefined
      : new AuthAuditRetention({ pool: ownerPool, clock, logger, retentionDays });
  const sync = new SchemaSync({
    pool: ownerPool,
    registry,
    logger,
    directory: resources.directory,
    secrets: config.records.secretEnvironment,
    onReload: () => auth.reload(),
    ...(deps.schemaPollMilliseconds !== undefined ? { pollMilliseconds: deps.schemaPollMilliseconds } : {}),
  });
  const pipeline = new WritePipeline(pool);
  const cursors = new CursorCodec(await loadCursorKey(ownerPool));
  const archiveFiles = new ArchiveFiles(
    deps.archiveStore ?? createObjectStore(config.records.archive),
    new DuckEngine(),
    logger,
  );
  // Requests read files under the request pool's statement limit; the jobs and erasure do not.
  const requestFiles = new ArchiveFiles(
    archiveFiles.store,
    archiveFiles.engine.withTimeout(config.databaseTimeouts.statementMs),
    logger,
  );
  const snapshots = new SnapshotJob(ownerPool, registry, logger, archiveFiles);
  const archive = new ArchiveJob({
    pool: ownerPool,
    registry,
    clock,
    logger,
    files: archiveFiles,
    beforeRun: () => finishInterruptedErasures(ownerPool, archiveFiles, registry, 600),
  });
  const { audit } = config.records;
  const signer = audit.signingKey === undefined ? undefined : Ed25519Signer.fromPem(audit.signingKey);
  const anchors = signer ? await AnchorStore.open(audit.anchorDir, signer) : undefined;
  // The anchor job reads every chain, past the row-level security of the runtime login.
  const auditAnchor = anchors
    ? new AuditAnchorJob({ pool: ownerPool, store: anchors, clock, logger })
    : undefined;
  if (anchors) logger.info({ file: anchors.file }, 'audit chain heads are anchored to this file');

  const app = await createHttpServer({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    maxJsonDepth: config.maxJsonDepth,
    timeouts: config.http,
    errors: recordsErrorCatalogue,
    metrics,
    openapi: { title: 'weft records', version: '1', description: 'Schema-driven records API' },
  });
  instrumentOperations(app, metrics);
  await serveConsole(app, 'records');
  installAuthentication(
    app,
    auth.authenticator,
    new ActorRateLimits(rateLimitStore, config.records.rateLimits),
    authAudit,
  );
  const recordAccess = deps.access ?? new AccessControl({ clock });
  const reader = new RecordReader(pool, recordAccess);
  await app.register((scope) => {
    registerPlatformRoutes(scope, {
      pool,
      registry,
      metrics,
      isReady: () => sync.isReady,
      healthTimeoutMs: config.healthTimeoutMs,
    });
    registerOidcRoutes(scope, { pool, clock, strategies: () => auth.oidcStrategies() });
    registerLoginStrategiesRoute(scope, () => auth.oidcStrategies());
    registerIdentityRoute(scope);
    registerAuthAuditRoutes(scope, { pool, audit: authAudit });
    registerRoleBindingRoutes(scope, { pool: ownerPool, publish: () => auth.publish() });
    registerApiKeyRoutes(scope, { pool, logger });
    registerRecordRoutes(scope, {
      registry,
      access: recordAccess,
      records: new RecordService({
        access: recordAccess,
        reader,
        pipeline,
        cursors,
        archivedInFiles: (schema, id) => requestFiles.holds(pool, schema.path, id),
      }),
    });
    registerSchemaRoute(scope, { registry, access: recordAccess });
    registerHistoryRoutes(scope, {
      registry,
      access: recordAccess,
      history: new HistoryService({ access: recordAccess, reader, pipeline, cursors, snapshots }),
    });
    registerAuditRoutes(scope, {
      audit: new AuditService({
        ownerPool,
        registry,
        access: recordAccess,
        reader,
        anchors,
        files: requestFiles,
      }),
    });
    registerArchiveRoutes(scope, {
      registry,
      access: recordAccess,
      archive: new ArchiveService({
        pool,
        access: recordAccess,
        pipeline,
        files: { files: requestFiles, ownerPool },
      }),
      cursors,
    });
    registerErasureRoutes(scope, { ownerPool, registry, files: archiveFiles });
    registerSearchRoutes(scope, {
      registry,
      access: recordAccess,
      search: new SearchService({
        registry,
        access: recordAccess,
        reader,
        backend: deps.search ?? new PostgresSearch(pool),
      }),
    });
    return Promise.resolve();
  });
  await app.ready();
  await sync.start();
  await snapshots.secureEarlierSnapshots();
  snapshots.start();
  archive.start();
  auditAnchor?.start(audit.anchorIntervalMilliseconds);
  authAuditRetention?.start();
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
    archiveFiles,
    requestArchiveFiles: requestFiles,
    auth,
    authAudit,
    authAuditRetention,
    auditAnchor,
    metrics,
    close: async () => {
      clearInterval(purge);
      await authAuditRetention?.close();
      await auditAnchor?.close();
      await snapshots.close();
      await archive.close();
      archiveFiles.engine.close();
      sync.close();
      await app.close();
      await authAudit.close();
      await auth.close();
      if (!deps.rateLimitStore) await rateLimitStore.close();
    },
  };
}
