import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logging/logger.js';
import { pgErrorCode, PgErrorCode, type Pool } from './pool.js';

const migrationFileName = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** One numbered SQL file. */
export interface Migration {
  id: string;
  sql: string;
  checksum: string;
}

/** Reads `NNNN_name.sql` files in order; refuses stray names and duplicate numbers. */
export async function readMigrations(directory: string): Promise<Migration[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.sql')).sort();
  const seen = new Set<string>();
  const migrations: Migration[] = [];
  for (const name of names) {
    const match = migrationFileName.exec(name);
    if (!match?.[1]) throw new Error(`Migration file ${name} must be named NNNN_lower_snake_case.sql`);
    if (seen.has(match[1])) throw new Error(`Two migrations share the number ${match[1]} in ${directory}`);
    seen.add(match[1]);
    const sql = await readFile(path.join(directory, name), 'utf8');
    migrations.push({
      id: name.replace(/\.sql$/, ''),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  return migrations;
}

/**
 * Applies pending migrations of one service, each in its own transaction that first inserts its own
 * row: when two instances start at once, the second blocks on that row, sees it committed and
 * skips the file, so no migration runs twice. Returns the ids this call applied.
 */
export async function migrate(
  pool: Pool,
  service: string,
  directory: string,
  logger?: Logger,
): Promise<string[]> {
  const migrations = await readMigrations(directory);
  await ensureMigrationsTable(pool);
  const applied: string[] = [];
  for (const migration of migrations) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO weft_migrations (service, id, checksum) VALUES ($1, $2, $3)
         ON CONFLICT (service, id) DO NOTHING RETURNING id`,
        [service, migration.id, migration.checksum],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK');
        await warnOnChangedFile(pool, service, migration, logger);
        continue;
      }
      await client.query(migration.sql);
      await client.query('COMMIT');
      applied.push(migration.id);
      logger?.info({ service, migration: migration.id }, 'migration applied');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new Error(`Migration ${service}/${migration.id} failed: ${(error as Error).message}`, {
        cause: error,
      });
    } finally {
      client.release();
    }
  }
  return applied;
}

async function ensureMigrationsTable(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin; the advisory lock serialises it.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('weft_migrations'))`);
    await client.query(`CREATE TABLE IF NOT EXISTS weft_migrations (
      service text NOT NULL,
      id text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (service, id)
    )`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (pgErrorCode(error) !== PgErrorCode.uniqueViolation) throw error;
  } finally {
    client.release();
  }
}

async function warnOnChangedFile(
  pool: Pool,
  service: string,
  migration: Migration,
  logger?: Logger,
): Promise<void> {
  const { rows } = await pool.query<{ checksum: string }>(
    'SELECT checksum FROM weft_migrations WHERE service = $1 AND id = $2',
    [service, migration.id],
  );
  if (rows[0] && rows[0].checksum !== migration.checksum) {
    logger?.warn(
      { service, migration: migration.id },
      'an applied migration file has changed since it ran; migrations are forward-only, add a new file instead',
    );
  }
}
