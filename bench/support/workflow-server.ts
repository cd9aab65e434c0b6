import { loadConfig } from '../../src/platform/config/index.js';
import { createPool } from '../../src/platform/database/pool.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { createRateLimitStore } from '../../src/platform/rate-limit/limiter.js';
import { createWorkflowService } from '../../src/workflow/index.js';

/** The signing key of benchmark servers (their tokens are minted by the benchmarks). */
export const benchSigningKey = 'bench-signing-key-0123456789abcdef0123456789';

/**
 * Runs the workflow service on `databaseUrl` in this process (logging at warn), prints
 * `READY <port>` for startServerProcess, and shuts down on SIGTERM.
 */
export async function serveWorkflowForBenchmark(databaseUrl: string, poolSize: number): Promise<void> {
  const config = loadConfig({
    WORKFLOW_DATABASE_URL: databaseUrl,
    WORKFLOW_JWT_SIGNING_KEY: benchSigningKey,
    WEFT_DATABASE_POOL_SIZE: String(poolSize),
    WEFT_LOG_LEVEL: 'warn',
  });
  const logger = createLogger(config.logLevel);
  const pool = createPool(databaseUrl, { max: config.databasePoolSize, applicationName: 'bench-weft' });
  const rateLimitStore = createRateLimitStore(undefined, logger);
  const service = await createWorkflowService({ config, pool, logger, rateLimitStore, databaseUrl });
  const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`READY ${new URL(address).port}\n`);
  process.on(
    'SIGTERM',
    () =>
      void service
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}
