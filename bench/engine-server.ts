/** The workflow service measured by bench/engine.ts, in its own process. */
import { loadConfig } from '../src/platform/config/index.js';
import { createPool } from '../src/platform/database/pool.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { createRateLimitStore } from '../src/platform/rate-limit/limiter.js';
import { createWorkflowService } from '../src/workflow/index.js';

const databaseUrl = process.env.BENCH_WORKFLOW_URL ?? '';
const config = loadConfig({
  WORKFLOW_DATABASE_URL: databaseUrl,
  WORKFLOW_JWT_SIGNING_KEY: 'bench-signing-key-0123456789abcdef0123456789',
  WEFT_DATABASE_POOL_SIZE: process.env.BENCH_POOL_SIZE ?? '10',
  WEFT_LOG_LEVEL: 'warn',
});
const logger = createLogger(config.logLevel);
const pool = createPool(databaseUrl, { max: config.databasePoolSize, applicationName: 'bench-engine' });
const service = await createWorkflowService({
  config,
  pool,
  logger,
  rateLimitStore: createRateLimitStore(undefined, logger),
  databaseUrl,
});
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
