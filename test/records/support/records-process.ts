/**
 * A records service in its own process, for tests that need two instances: configured from the
 * environment like `weft records`, on the database `RECORDS_DATABASE_URL`; prints `ready` once
 * listening and stops on SIGTERM.
 */
import { loadConfig } from '../../../src/platform/config/index.js';
import { createPool } from '../../../src/platform/database/pool.js';
import { createLogger } from '../../../src/platform/logging/logger.js';
import { createRecordsService } from '../../../src/records/index.js';

const config = loadConfig(process.env);
const pool = createPool(config.records.databaseUrl ?? '', { max: 4, applicationName: 'weft-test-child' });
const service = await createRecordsService({
  config,
  pool,
  logger: createLogger('silent'),
  schemaPollMilliseconds: 200,
});
await service.app.listen({ port: config.records.port, host: '127.0.0.1' });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void service
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
