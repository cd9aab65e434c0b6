import path from 'node:path';
import type { Config } from './platform/config/index.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './platform/database/embedded-postgres.js';
import { createPool, type Pool } from './platform/database/pool.js';
import { ensureDatabase } from './platform/database/provision.js';
import type { Logger } from './platform/logging/logger.js';
import { listenForScrapes } from './platform/metrics/scrape-listener.js';
import { createRateLimitStore } from './platform/rate-limit/limiter.js';
import { createRecordsService, prepareRecordsDatabase } from './records/index.js';
import { createWorkflowService, prepareWorkflowDatabase } from './workflow/index.js';

/** The services one process can run. */
export type ServiceName = 'workflow' | 'records';

/** Services started by runServices. */
export interface RunningServices {
  /** Base URL of each started service. */
  urls: Partial<Record<ServiceName, string>>;
  /** Base URL of each separate, unauthenticated metrics listener (`RECORDS_METRICS_PORT`). */
  scrapeUrls: Partial<Record<ServiceName, string>>;
  /** Stops accepting, drains requests, closes pools, stops the embedded database. */
  stop(): Promise<void>;
}

/** The logins of one service's database. */
interface ServiceDatabase {
  /** The login requests run as. */
  url: string;
  /** The login that owns the tables and runs migrations (the same URL when there is one login). */
  ownerUrl: string;
}

interface Databases {
  urls: Record<ServiceName, ServiceDatabase | undefined>;
  embedded: EmbeddedPostgres | undefined;
}

/**
 * The embedded cluster's runtime login of each service (docs/records/access-control.md,
 * docs/workflow/identity.md): it owns nothing; the superuser migrates.
 */
export const embeddedRuntimeLogins: Record<ServiceName, string> = {
  workflow: 'weft_workflow_service',
  records: 'weft_records_service',
};

/** The runtime and owner URLs of one service from its `*_DATABASE_URL` and `*_MIGRATION_DATABASE_URL`. */
function configuredDatabase(
  name: string,
  runtime: string | undefined,
  owner: string | undefined,
): ServiceDatabase | undefined {
  if (owner !== undefined && runtime === undefined)
    throw new Error(`${name}_MIGRATION_DATABASE_URL needs ${name}_DATABASE_URL (the login requests run as)`);
  return runtime === undefined ? undefined : { url: runtime, ownerUrl: owner ?? runtime };
}

/**
 * Connects to the configured databases, starting the embedded PostgreSQL for any service whose
 * database URL is unset and creating its database there. On the embedded cluster each service
 * runs requests as a login of its own that owns nothing; the superuser migrates.
 */
async function openDatabases(
  config: Config,
  services: readonly ServiceName[],
  logger: Logger,
): Promise<Databases> {
  const configured: Record<ServiceName, ServiceDatabase | undefined> = {
    workflow: configuredDatabase(
      'WORKFLOW',
      config.workflow.databaseUrl,
      config.workflow.migrationDatabaseUrl,
    ),
    records: configuredDatabase('RECORDS', config.records.databaseUrl, config.records.migrationDatabaseUrl),
  };
  const needEmbedded = services.filter((service) => configured[service] === undefined);
  if (needEmbedded.length === 0) return { urls: configured, embedded: undefined };
  const embedded = await startEmbeddedPostgres({
    directory: path.join(config.dataDir, 'postgres'),
    port: config.embeddedPostgresPort,
    logger: logger.child({ component: 'embedded-postgres' }),
  });
  const urls = { ...configured };
  try {
    for (const service of needEmbedded) {
      await ensureDatabase(embedded.urlFor('postgres'), service);
      const ownerUrl = embedded.urlFor(service);
      urls[service] = { ownerUrl, url: await embedded.loginUrlFor(service, embeddedRuntimeLogins[service]) };
    }
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { urls, embedded };
}

/** Applies the migrations of the given services and exits (the `weft migrate` command). */
export async function migrateServices(
  config: Config,
  services: readonly ServiceName[],
  logger: Logger,
): Promise<void> {
  const databases = await openDatabases(config, services, logger);
  try {
    for (const service of services) {
      const pool = createPool(requireUrls(databases, service).ownerUrl, {
        max: 2,
        applicationName: `weft-${service}-migrate`,
        timeouts: config.adminDatabaseTimeouts,
      });
      try {
        if (service === 'workflow') await prepareWorkflowDatabase(pool, config, logger);
        else await prepareRecordsDatabase(pool, logger);
      } finally {
        await pool.end();
      }
    }
  } finally {
    await databases.embedded?.stop();
  }
}

/**
 * Starts the given services: databases, migrations, bootstrap, then the HTTP listeners. If any step
 * fails, whatever was started is stopped again before the error propagates.
 */
export async function runServices(
  config: Config,
  services: readonly ServiceName[],
  logger: Logger,
): Promise<RunningServices> {
  const databases = await openDatabases(config, services, logger);
  const rateLimitStore = createRateLimitStore(config.redisUrl, logger, config.redisCommandTimeoutMs);
  const pools: Pool[] = [];
  const closers: (() => Promise<void>)[] = [];
  const urls: Partial<Record<ServiceName, string>> = {};
  const scrapeUrls: Partial<Record<ServiceName, string>> = {};

  const stop = async () => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => logger.error({ err: error }, 'close failed'));
    // A database that stopped answering must not hold the shutdown: connections are dropped after 5 s.
    await Promise.all(pools.map((pool) => endWithin(pool, 5_000)));
    await rateLimitStore.close();
    await databases.embedded?.stop();
  };

  try {
    for (const service of services) {
      const database = requireUrls(databases, service);
      const pool = createPool(database.url, {
        max: config.databasePoolSize,
        applicationName: `weft-${service}`,
        logger,
        timeouts: config.databaseTimeouts,
      });
      pools.push(pool);
      // A pool of its own even for the same login: the owner's work (migrations, DDL, retention,
      // archive, snapshots) has its own statement timeout, and cannot starve requests of connections.
      const ownerPool = createPool(database.ownerUrl, {
        max: 4,
        applicationName: `weft-${service}-owner`,
        logger,
        timeouts: config.adminDatabaseTimeouts,
      });
      pools.push(ownerPool);
      const runtimeLogin =
        database.ownerUrl === database.url
          ? undefined
          : (await pool.query<{ login: string }>('SELECT current_user AS login')).rows[0]?.login;
      if (service === 'workflow') {
        await prepareWorkflowDatabase(ownerPool, config, logger, runtimeLogin);
        const workflow = await createWorkflowService({
          config,
          pool,
          ownerPool,
          logger,
          rateLimitStore,
          databaseUrl: database.url,
        });
        closers.push(() => workflow.close());
        urls.workflow = await workflow.app.listen({ host: config.host, port: config.workflow.port });
      } else {
        await prepareRecordsDatabase(ownerPool, logger, runtimeLogin);
        const records = await createRecordsService({ config, pool, ownerPool, logger, rateLimitStore });
        closers.push(() => records.close());
        urls.records = (await records.app.listen({ host: config.host, port: config.records.port })) + '/api';
        const scrapes = config.records.metricsListener;
        if (scrapes !== undefined) {
          const listener = await listenForScrapes(records.metrics, scrapes.host, scrapes.port);
          closers.push(() => listener.close());
          scrapeUrls.records = listener.url;
        }
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, scrapeUrls, stop };
}

async function endWithin(pool: Pool, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    pool.end().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

function requireUrls(databases: Databases, service: ServiceName): ServiceDatabase {
  const urls = databases.urls[service];
  if (urls === undefined) throw new Error(`No database URL for ${service}`);
  return urls;
}
