import type { Config } from '../../platform/config/index.js';
import { openCliDatabase } from '../../platform/database/cli-database.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { prepareRecordsDatabase } from '../index.js';

/** A migrated pool on the records database for one CLI command (see {@link openCliDatabase}). */
export function openRecordsDatabase(
  config: Config,
  logger: Logger,
): Promise<{ pool: Pool; close(): Promise<void> }> {
  return openCliDatabase(config, logger, {
    name: 'records',
    // Resource applies and key administration run as the owner (DDL), as migrations do.
    url: config.records.migrationDatabaseUrl ?? config.records.databaseUrl,
    prepare: (pool) => prepareRecordsDatabase(pool, logger),
  });
}
