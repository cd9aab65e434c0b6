import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../src/platform/database/pool.js';

/** A database of one test file, dropped by `drop()`. */
export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is unset: run the tests with \`npm test\` (scripts/run-tests.ts sets it)`);
  return value;
}

function urlOf(database: string): string {
  const url = new URL(requiredEnv('WEFT_TEST_ADMIN_URL'));
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: requiredEnv('WEFT_TEST_ADMIN_URL') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function create(template: string | undefined): Promise<TestDatabase> {
  const name = `weft_t_${requiredEnv('WEFT_TEST_RUN_ID')}_${randomBytes(5).toString('hex')}`;
  await admin(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = urlOf(name);
  const pool = createPool(url, { max: 10, applicationName: 'weft-test' });
  return {
    url,
    pool,
    drop: async () => {
      await pool.end();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A fresh database already migrated for `service`, cloned from the run's template. */
export function createMigratedDatabase(service: 'workflow' | 'records'): Promise<TestDatabase> {
  return create(
    requiredEnv(service === 'workflow' ? 'WEFT_TEST_WORKFLOW_TEMPLATE' : 'WEFT_TEST_RECORDS_TEMPLATE'),
  );
}

/** A fresh empty database (for migration tests). */
export function createEmptyDatabase(): Promise<TestDatabase> {
  return create(undefined);
}
