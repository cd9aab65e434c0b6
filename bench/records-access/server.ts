/** The records service for bench:records-access, in its own process. Prints `READY <port>`. */
import { loadConfig } from '../../src/platform/config/index.js';
import { createPool } from '../../src/platform/database/pool.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { createRecordsService } from '../../src/records/index.js';

const databaseUrl = process.env.BENCH_RECORDS_URL ?? '';
const config = loadConfig({
  RECORDS_DATABASE_URL: databaseUrl,
  RECORDS_RESOURCES_DIR: process.env.BENCH_RESOURCES_DIR ?? '',
  RECORDS_JWT_SECRET: process.env.BENCH_JWT_SECRET ?? '',
  RECORDS_RATE_LIMIT_PER_MINUTE: '1000000000',
  WEFT_LOG_LEVEL: 'warn',
});
const logger = createLogger('warn');
const pool = createPool(databaseUrl, { max: 10, applicationName: 'bench-records-access', logger });
const service = await createRecordsService({ config, pool, logger });
process.once('SIGTERM', () => process.exit(0));
const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`READY ${new URL(address).port}\n`);
