import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../../platform/config/index.js';
import { startEmbeddedPostgres } from '../../platform/database/embedded-postgres.js';
import { createPool, type Pool } from '../../platform/database/pool.js';
import { ensureDatabase } from '../../platform/database/provision.js';
import type { Logger } from '../../platform/logging/logger.js';
import { prepareRecordsDatabase } from '../index.js';

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A migrated pool on the records database for one CLI command: `RECORDS_DATABASE_URL`, else the
 * embedded cluster — joined when a running weft already serves it (never restarted under it),
 * started and stopped again otherwise.
 */
export async function openRecordsDatabase(
  config: Config,
  logger: Logger,
): Promise<{ pool: Pool; close(): Promise<void> }> {
  let url = config.records.databaseUrl;
  let stopEmbedded = async () => {};
  if (url === undefined) {
    const directory = path.join(config.dataDir, 'postgres');
    if (await listening(config.embeddedPostgresPort)) {
      const password = (await readFile(path.join(directory, 'password'), 'utf8')).trim();
      url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${config.embeddedPostgresPort}/records`;
    } else {
      const embedded = await startEmbeddedPostgres({ directory, port: config.embeddedPostgresPort, logger });
      await ensureDatabase(embedded.urlFor('postgres'), 'records');
      url = embedded.urlFor('records');
      stopEmbedded = () => embedded.stop();
    }
  }
  const pool = createPool(url, { max: 2, applicationName: 'weft-records-cli', logger });
  try {
    await prepareRecordsDatabase(pool, logger);
  } catch (error) {
    await pool.end();
    await stopEmbedded();
    throw error;
  }
  return {
    pool,
    close: async () => {
      await pool.end();
      await stopEmbedded();
    },
  };
}
