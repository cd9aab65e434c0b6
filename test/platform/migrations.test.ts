import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { migrate, readMigrations } from '../../src/platform/database/migrate.js';
import { createPool } from '../../src/platform/database/pool.js';
import { recordsMigrationsDir } from '../../src/records/index.js';
import { workflowMigrationsDir } from '../../src/workflow/index.js';
import { createEmptyDatabase } from '../helpers/database.js';

async function migrationsFolder(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'weft-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(folder, name), sql);
  return folder;
}

describe('migrations', () => {
  test('two migrators starting at the same moment apply each file exactly once', async () => {
    const database = await createEmptyDatabase();
    // A migration that is not idempotent: applying it twice would fail or double the rows.
    const folder = await migrationsFolder({
      '0001_create.sql':
        'CREATE TABLE applied (n int); INSERT INTO applied VALUES (1); SELECT pg_sleep(0.2);',
      '0002_more.sql': 'INSERT INTO applied VALUES (2); SELECT pg_sleep(0.1);',
    });
    const second = createPool(database.url, { max: 2, applicationName: 'migrator-2' });
    try {
      const [first, other] = await Promise.all([
        migrate(database.pool, 'test', folder),
        migrate(second, 'test', folder),
      ]);
      assert.deepEqual([...first, ...other].sort(), ['0001_create', '0002_more']);
      const { rows } = await database.pool.query<{ n: number }>('SELECT n FROM applied ORDER BY n');
      assert.deepEqual(rows, [{ n: 1 }, { n: 2 }]);
      const { rows: recorded } = await database.pool.query('SELECT id FROM weft_migrations ORDER BY id');
      assert.deepEqual(recorded, [{ id: '0001_create' }, { id: '0002_more' }]);
    } finally {
      await second.end();
      await database.drop();
    }
  });

  test('the real workflow and records migrations apply concurrently from an empty database, and re-running applies nothing', async () => {
    const database = await createEmptyDatabase();
    const second = createPool(database.url, { max: 2, applicationName: 'migrator-2' });
    try {
      const results = await Promise.all([
        migrate(database.pool, 'workflow', workflowMigrationsDir),
        migrate(second, 'workflow', workflowMigrationsDir),
        migrate(database.pool, 'records', recordsMigrationsDir),
      ]);
      const expected = (await readMigrations(workflowMigrationsDir)).map((m) => m.id);
      assert.deepEqual([...(results[0] ?? []), ...(results[1] ?? [])].sort(), expected);
      assert.deepEqual(await migrate(database.pool, 'workflow', workflowMigrationsDir), []);
    } finally {
      await second.end();
      await database.drop();
    }
  });

  test('a failing migration rolls back entirely and is not recorded', async () => {
    const database = await createEmptyDatabase();
    const folder = await migrationsFolder({
      '0001_ok.sql': 'CREATE TABLE kept (n int);',
      '0002_broken.sql': 'CREATE TABLE half (n int); SELECT * FROM no_such_table;',
    });
    try {
      await assert.rejects(migrate(database.pool, 'test', folder), /0002_broken failed/);
      const { rows } = await database.pool.query(
        `SELECT to_regclass('kept') IS NOT NULL AS kept, to_regclass('half') IS NOT NULL AS half`,
      );
      assert.deepEqual(rows, [{ kept: true, half: false }]);
      const { rows: recorded } = await database.pool.query('SELECT id FROM weft_migrations');
      assert.deepEqual(recorded, [{ id: '0001_ok' }]);
    } finally {
      await database.drop();
    }
  });

  test('badly named files and duplicate numbers are refused', async () => {
    await assert.rejects(readMigrations(await migrationsFolder({ 'init.sql': '' })), /NNNN_lower_snake_case/);
    await assert.rejects(
      readMigrations(await migrationsFolder({ '0001_a.sql': '', '0001_b.sql': '' })),
      /share the number 0001/,
    );
  });
});
