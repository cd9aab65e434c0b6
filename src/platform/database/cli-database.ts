import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/logger.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { createPool, type Pool } from './pool.js';
import { ensureDatabase } from './provision.js';

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

/** Which service's database a CLI command opens, and how it brings it up to date. */
export interface CliDatabaseTarget {
  /** The embedded database's name and the pool's application name suffix: `workflow` or `records`. */
  name: 'workflow' | 'records';
  /** The service's `*_DATABASE_URL`; the embedded cluster when undefined. */
  url: string | undefined;
  /** Migrates (and whatever else the service does before serving). */
  prepare(pool: Pool): Promise<void>;
}

/**
 * A prepared pool on a service's database for one CLI command: its configured URL, else the
 * embedded cluster — joined when a running weft already serves it (never restarted under it),
 * started and stopped again otherwise.
 */
export async function openCliDatabase(
  config: Config,
  logger: Logger,
  target: CliDatabaseTarget,
): Promise<{ pool: Pool; close(): Promise<void> }> {
  let url = target.url;
  let stopEmbedded = async () => {};
  if (url === undefined) {
    const directory = path.join(config.dataDir, 'postgres');
    if (await listening(config.embeddedPostgresPort)) {
      const password = (await readFile(path.join(directory, 'password'), 'utf8')).trim();
      url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${config.embeddedPostgresPort}/${target.name}`;
    } else {
      const embedded = await startEmbeddedPostgres({ directory, port: config.embeddedPostgresPort, logger });
      await ensureDatabase(embedded.urlFor('postgres'), target.name);
      url = embedded.urlFor(target.name);
      stopEmbedded = () => embedded.stop();
    }
  }
  const pool = createPool(url, { max: 2, applicationName: `weft-${target.name}-cli`, logger });
  try {
    await target.prepare(pool);
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
