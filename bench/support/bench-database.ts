import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded-postgres.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { freePort } from '../../test/helpers/ports.js';

/** A database server for a benchmark run: BENCH_DATABASE_URL's server, or a throwaway embedded one. */
export interface BenchServer {
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  describe: string;
  stop(): Promise<void>;
}

/** Starts (or connects to) the benchmark's PostgreSQL server. */
export async function startBenchServer(): Promise<BenchServer> {
  const external = process.env.BENCH_DATABASE_URL;
  let adminUrl: string;
  let stopServer = async () => {};
  let describe: string;
  if (external) {
    adminUrl = external;
    describe = `PostgreSQL at ${new URL(external).host}`;
  } else {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-pg-'));
    const embedded = await startEmbeddedPostgres({
      directory,
      port: await freePort(),
      logger: createLogger('warn'),
    });
    adminUrl = embedded.urlFor('postgres');
    describe = 'embedded PostgreSQL';
    stopServer = async () => {
      await embedded.stop();
      await rm(directory, { recursive: true, force: true });
    };
  }
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const server = await pgVersion(adminUrl);
  return {
    describe: `${describe} ${server}`,
    createDatabase: async (name) => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(`CREATE DATABASE ${name}`);
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    stop: async () => {
      for (const name of created)
        await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await stopServer();
    },
  };
}

async function pgVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version ?? '';
  } finally {
    await client.end();
  }
}
