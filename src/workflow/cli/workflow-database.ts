import type { Config } from '../../platform/config/index.js';
import { openCliDatabase } from '../../platform/database/cli-database.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { prepareWorkflowDatabase } from '../index.js';

/** A migrated pool on the workflow database for one CLI command (see {@link openCliDatabase}). */
export function openWorkflowDatabase(
  config: Config,
  logger: Logger,
): Promise<{ pool: Pool; close(): Promise<void> }> {
  return openCliDatabase(config, logger, {
    name: 'workflow',
    // Migrations and administration run as the owner.
    url: config.workflow.migrationDatabaseUrl ?? config.workflow.databaseUrl,
    prepare: (pool) => prepareWorkflowDatabase(pool, config, logger),
  });
}
