import assert from 'node:assert/strict';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded-postgres.js';
import { canReach, ensurePostgresUser } from '../../src/platform/database/postgres-as-root.js';
import { captureLogs } from '../helpers/log-capture.js';
import { freePort } from '../helpers/ports.js';

const isRoot = process.getuid?.() === 0;
const skipReason = isRoot ? undefined : 'not running as root: the root start cannot be exercised';
if (skipReason) console.log(`# root start tests skipped: ${skipReason}`);

/** The package's PostgreSQL build for this platform (bin, lib, share). */
function packageBinaries(): string {
  const fromPackage = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')));
  const entry = fromPackage.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native');
}

async function query(url: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<pg.QueryResultRow>(text);
    return result.rows;
  } finally {
    await client.end();
  }
}

describe(
  'starting as root with the clone and WEFT_DATA_DIR under a 0700 home (like /root)',
  { skip: skipReason },
  () => {
    let home: string;
    let staging: string;
    let binaries: string;
    let directory: string;
    before(async () => {
      // A home only root may enter, holding a clone (its PostgreSQL binaries) and the data dir.
      home = await mkdtemp(path.join(os.tmpdir(), 'weft-root-home-'));
      await chmod(home, 0o700);
      binaries = path.join(home, 'clone', 'node_modules', 'native');
      await mkdir(path.dirname(binaries), { recursive: true });
      await cp(packageBinaries(), binaries, { recursive: true, verbatimSymlinks: true });
      directory = path.join(home, 'clone', '.weft', 'postgres');
      await mkdir(directory, { recursive: true });
      staging = await mkdtemp(path.join(os.tmpdir(), 'weft-staging-'));
      await chmod(staging, 0o755);
    });
    after(async () => {
      await rm(home, { recursive: true, force: true });
      await rm(staging, { recursive: true, force: true });
    });

    test('the postgres user indeed cannot reach the clone or the data dir', async () => {
      const user = await ensurePostgresUser();
      assert.equal(canReach(user, path.join(binaries, 'bin', 'initdb')), false);
      assert.equal(canReach(user, directory), false);
    });

    test('the cluster starts with staged binaries and data, and keeps its data across restarts', async () => {
      const logs = captureLogs('info');
      const port = await freePort();
      const first = await startEmbeddedPostgres({
        directory,
        port,
        logger: logs.logger,
        binaries,
        stagingRoot: staging,
      });
      try {
        const [row] = await query(
          first.urlFor('postgres'),
          "SELECT current_setting('data_directory') AS dir",
        );
        assert.ok(String(row?.dir).startsWith(path.join(staging, 'clusters')), String(row?.dir));
        await query(first.urlFor('postgres'), 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
      } finally {
        await first.stop();
      }
      const second = await startEmbeddedPostgres({
        directory,
        port,
        logger: logs.logger,
        binaries,
        stagingRoot: staging,
      });
      try {
        assert.deepEqual(await query(second.urlFor('postgres'), 'SELECT n FROM kept'), [{ n: 42 }]);
      } finally {
        await second.stop();
      }
      assert.match(logs.text(), /cannot reach the PostgreSQL binaries/);
      assert.match(logs.text(), /cannot reach WEFT_DATA_DIR/);
    });

    test('when nothing can be staged, the start stops with one clear line (no spawn EACCES crash)', async () => {
      const other = path.join(home, 'other', 'postgres');
      await mkdir(other, { recursive: true });
      // A staging root below a regular file can never be created.
      const notAFolder = path.join(home, 'a-file');
      await writeFile(notAFolder, '');
      const started = startEmbeddedPostgres({
        directory: other,
        port: await freePort(),
        logger: captureLogs('fatal').logger,
        binaries,
        stagingRoot: path.join(notAFolder, 'staging'),
      });
      await assert.rejects(started, (error: Error) => {
        assert.doesNotMatch(error.message, /\n/);
        assert.match(error.message, /^running as root, the postgres user cannot reach/);
        return true;
      });
    });
  },
);
