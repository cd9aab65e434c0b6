/**
 * Runs the test suite against a real PostgreSQL: the server of TEST_DATABASE_URL when set, else a
 * throwaway embedded one. Migrates each service once into a template database; every test file
 * then clones its own database from the template (see test/helpers/database.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/platform/database/embedded-postgres.js';
import { ensureLogin } from '../src/platform/database/logins.js';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { recordsMigrationsDir } from '../src/records/index.js';
import { workflowMigrationsDir } from '../src/workflow/index.js';
import { prepareBrowser } from '../test/helpers/browser.js';
import { runtimeLogins } from '../test/helpers/runtime-login.js';

const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const logger = createLogger('warn');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function testFiles(roots: string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (entry: string): Promise<void> => {
    if (entry.endsWith('.test.ts')) {
      found.push(entry);
      return;
    }
    const children = await readdir(entry, { withFileTypes: true }).catch(() => []);
    for (const child of children) {
      if (child.isDirectory() || child.name.endsWith('.test.ts')) await walk(path.join(entry, child.name));
    }
  };
  for (const root of roots) await walk(root);
  return found.sort();
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function main(): Promise<number> {
  const files = await testFiles(process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test']);
  let embedded: EmbeddedPostgres | undefined;
  let embeddedDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    console.log(`tests: PostgreSQL at ${new URL(adminUrl).host} (TEST_DATABASE_URL)`);
  } else {
    embeddedDir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-pg-'));
    embedded = await startEmbeddedPostgres({ directory: embeddedDir, port: await freePort(), logger });
    adminUrl = embedded.urlFor('postgres');
    console.log('tests: embedded PostgreSQL (set TEST_DATABASE_URL to use another server)');
  }
  const templates = { workflow: `weft_t_${runId}_tpl_workflow`, records: `weft_t_${runId}_tpl_records` };
  const migrationDirs = { workflow: workflowMigrationsDir, records: recordsMigrationsDir };
  try {
    for (const [service, template] of Object.entries(templates) as [keyof typeof templates, string][]) {
      await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${template}`));
      const pool = createPool(databaseUrl(adminUrl, template), {
        max: 2,
        applicationName: 'weft-test-template',
      });
      try {
        await migrate(pool, service, migrationDirs[service]);
      } finally {
        await pool.end();
      }
    }
    // The logins tests serve requests as: they own nothing and are members of the application
    // roles the migrations created, as in production (docs/records/access-control.md).
    for (const login of Object.values(runtimeLogins)) {
      await ensureLogin(adminUrl, login.user, login.password);
      await withAdmin(adminUrl, (client) => client.query(`GRANT ${login.role} TO ${login.user}`));
    }
    if (files.some((file) => file.split(path.sep).includes('console'))) await prepareBrowser();
    return await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
        {
          stdio: 'inherit',
          env: {
            ...process.env,
            WEFT_TEST_ADMIN_URL: adminUrl,
            WEFT_TEST_RUN_ID: runId,
            WEFT_TEST_WORKFLOW_TEMPLATE: templates.workflow,
            WEFT_TEST_RECORDS_TEMPLATE: templates.records,
          },
        },
      );
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await withAdmin(adminUrl, async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE $1`,
        [`weft_t_${runId}_%`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }).catch((error: unknown) => console.error('tests: could not drop test databases', error));
    await embedded?.stop();
    if (embeddedDir) await rm(embeddedDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
