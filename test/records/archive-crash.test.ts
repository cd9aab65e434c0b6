import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fileSetsOf } from '../../src/records/archive/files/manifest-repository.js';
import { duckLiteral } from '../../src/records/archive/files/duck-engine.js';
import { readdir } from 'node:fs/promises';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { systemClock } from '../../src/platform/clock.js';
import { captureLogs } from '../helpers/log-capture.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

/**
 * The records archive job SIGKILLed while it moves records into many small file sets: at chosen
 * points (right after an object upload, right after a COMMIT is sent) and at random moments, then
 * restarted until it finishes. Afterwards every record is in exactly one place (hot, staging, or
 * one current file copy), each reads once through the API with its history, the archive query
 * counts exactly, audit chains verify, and file sets uploaded but never listed (orphans) are not
 * read (they are overwritten with garbage first). ARCHIVE_CRASH_SEED replays the random delays.
 */

const schemaPath = 'acme/ops/crash/parcels/v1';
const table = 'rec_acme.ops__crash__parcels__v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: parcels-v1 }
spec:
  org: acme
  app: ops
  domain: crash
  object: parcels
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true, unique: true, filterable: true }
    - { name: weight, type: number, filterable: true }
    - { name: status, type: enum, enum: [new, sent, kept], required: true, filterable: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 0
    condition: { field: status, op: ne, value: kept }
`;
const recordCount = Number(process.env.ARCHIVE_CRASH_RECORDS ?? 120);
const seed = Number(process.env.ARCHIVE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const child = fileURLToPath(new URL('./support/archive-job-process.ts', import.meta.url));

type Data<T> = { data: T; pagination?: { cursor: string | null } };

describe(`the archive job across SIGKILLs (seed ${seed})`, () => {
  let app: RecordsTestApp;
  let dataDir: string;
  const ids: string[] = [];
  const kept: string[] = [];
  let random = seed;
  const nextRandom = () => {
    random = (Math.imul(random, 1103515245) + 12345) >>> 0;
    return random / 2 ** 32;
  };

  before(async () => {
    console.log(`archive crash seed: ${seed} (replay with ARCHIVE_CRASH_SEED=${seed})`);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-archive-crash-'));
    app = await startRecordsApp(
      { WEFT_DATA_DIR: dataDir, RECORDS_ARCHIVE_RATE_LIMIT: '100000' },
      { resources: { 'parcels.yaml': yaml } },
    );
    // Only the child process archives.
    await app.service.archive.close();
  });
  after(() => app?.close());

  /** Runs the job process; `kill` decides when to SIGKILL it. Resolves with how it ended. */
  const runJob = async (
    env: Record<string, string>,
    killAfterMilliseconds?: number,
  ): Promise<'done' | 'killed'> => {
    // node itself (tsx as a loader, not its wrapper process), so SIGKILL reaches the job.
    const process_: ChildProcess = spawn(process.execPath, ['--import', 'tsx', child], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        RECORDS_DATABASE_URL: app.database.url,
        RECORDS_RESOURCES_DIR: app.resourcesDir,
        RECORDS_JWT_SECRET: 'records-test-secret-0123456789abcdef0123',
        RECORDS_JWT_ISSUER: 'https://issuer.test',
        WEFT_DATA_DIR: dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    process_.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process_.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      process_.once('exit', (code, signal) => resolve({ code, signal })),
    );
    if (killAfterMilliseconds !== undefined) {
      while (!output.includes('started') && process_.exitCode === null && process_.signalCode === null)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, killAfterMilliseconds));
      if (process_.exitCode === null && process_.signalCode === null) process_.kill('SIGKILL');
    }
    const { code, signal } = await exited;
    if (signal === 'SIGKILL' || code === 137) return 'killed';
    assert.equal(code, 0, `the job process failed:\n${output}`);
    assert.match(output, /done/);
    return 'done';
  };
  const count = async (sql: string, values: unknown[] = []) =>
    Number((await app.database.pool.query<{ n: string }>(sql, values)).rows[0]?.n);
  let serial = 0;
  /** Creates `recordCount` records: every third changed once (a history row), every tenth never due. */
  const createRecords = async () => {
    for (let index = 0; index < recordCount; index += 1, serial += 1) {
      const status = serial % 10 === 9 ? 'kept' : 'new';
      const response = await app.call('POST', `/api/${schemaPath}`, {
        body: { code: `P-${serial}`, weight: serial / 8, status },
      });
      assert.equal(response.statusCode, 201, response.body);
      const { id } = response.json<Data<{ id: string }>>().data;
      (status === 'kept' ? kept : ids).push(id);
      if (serial % 3 === 0) {
        const patched = await app.call('PATCH', `/api/${schemaPath}/${id}`, {
          body: { version: 1, status: status === 'kept' ? 'kept' : 'sent', weight: serial },
        });
        assert.equal(patched.statusCode, 200, patched.body);
      }
    }
  };
  /** Where the archived records are: still hot, staged, or listed in a file set. */
  const where = async () => {
    const hot = await count(`SELECT count(*) AS n FROM ${table} WHERE status <> 'kept'`);
    const staged = await count(
      `SELECT count(DISTINCT record_id) AS n FROM records_archive.records WHERE schema_path = $1`,
      [schemaPath],
    );
    const files = await count(
      `SELECT coalesce(sum(record_count), 0) AS n FROM records_archive.files WHERE schema_path = $1`,
      [schemaPath],
    );
    return `hot ${hot}, staged ${staged}, in files ${files}`;
  };

  test('killed at chosen points: after COMMITs while staging, after uploads, after COMMITs while exporting', async () => {
    await createRecords();
    const outcomes: string[] = [];
    // Each in a fresh process. Staging batches commit first (7 records each): commit 2 and 9 are
    // mid-staging; the next process stages nothing and exports: after its first upload (a partial
    // set), after a whole set (4 objects) and one file more, after its third export's COMMIT.
    for (const at of ['commit:2', 'commit:9', 'put:1', 'put:4', 'put:6', 'commit:3']) {
      const ended = await runJob({ ARCHIVE_CRASH_AT: at });
      outcomes.push(`${at}: ${ended} (${await where()})`);
      assert.equal(ended, 'killed', outcomes.join('\n'));
    }
    console.log(outcomes.join('\n'));
  });

  test('killed at random moments over fresh records, then finished', async () => {
    await createRecords();
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const delay = Math.floor(30 + nextRandom() * 700);
      const ended = await runJob({}, delay);
      outcomes.push(`after ${delay} ms: ${ended} (${await where()})`);
      if (ended === 'done') break;
    }
    console.log(outcomes.join('\n'));
    assert.ok(outcomes.filter((outcome) => outcome.includes('killed')).length >= 2, outcomes.join('\n'));
    // Restarted without a kill: it finishes, and a further run finds nothing to do.
    assert.equal(await runJob({}), 'done');
    assert.equal(await runJob({}), 'done');
  });

  test('every record is in exactly one place; orphaned file sets are never read', async () => {
    const pool = app.database.pool;
    const files = app.service.archiveFiles;
    assert.equal(await count(`SELECT count(*) AS n FROM ${table}`), kept.length);
    assert.equal(
      await count(`SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1`, [schemaPath]),
      0,
      'everything staged was exported',
    );
    const entries = await fileSetsOf(pool, schemaPath);
    assert.ok(entries.length >= Math.ceil(ids.length / 5), `${entries.length} file sets`);
    // Every record's copies in listed file sets, less superseded ones.
    const listed = await Promise.all(entries.map((entry) => files.localFile(entry, 'records')));
    const rows = await files.engine.rows<{ id: string; filename: string }>(
      `SELECT CAST("id" AS VARCHAR) AS id, filename FROM read_parquet([${listed.map(duckLiteral).join(', ')}], filename = true)`,
    );
    const setOf = new Map(listed.map((file, index) => [file, entries[index]!.file_set_id]));
    const superseded = new Set(
      (
        await pool.query<{ key: string }>(
          `SELECT file_set_id::text || '/' || record_id::text AS key FROM records_archive.superseded_copies`,
        )
      ).rows.map((row) => row.key),
    );
    const copies = new Map<string, number>();
    for (const row of rows)
      if (!superseded.has(`${setOf.get(row.filename)}/${row.id}`))
        copies.set(row.id, (copies.get(row.id) ?? 0) + 1);
    const wrong = ids.filter((id) => copies.get(id) !== 1).map((id) => `${id}: ${copies.get(id) ?? 0}`);
    assert.deepEqual(wrong, [], 'each archived record has exactly one current file copy');
    assert.equal(copies.size, ids.length, 'no other record is in the files');
    for (const id of kept) assert.ok(!copies.has(id));
    // History and audit rows: each event once in the files, none left in PostgreSQL.
    const history = await count(
      `SELECT count(*) AS n FROM records_archive.history WHERE record_id = ANY($1::uuid[])`,
      [ids],
    );
    assert.equal(history, 0);
    assert.equal(
      await count(`SELECT count(*) AS n FROM records.audit_events WHERE entity_id = ANY($1::uuid[])`, [ids]),
      0,
    );

    // Orphans: objects under the schema's prefix that the manifest does not list. Overwritten with
    // garbage, so any read of one would fail the reads below.
    const listedPrefixes = new Set(entries.map((entry) => entry.object_prefix));
    const keys = await files.store.list(`${schemaPath}/`);
    const orphanKeys = keys.filter((key) => ![...listedPrefixes].some((prefix) => key.startsWith(prefix)));
    const orphanSets = new Set(orphanKeys.map((key) => key.slice(0, key.lastIndexOf('/') + 1)));
    console.log(
      `${entries.length} listed file sets, ${orphanSets.size} orphaned (${orphanKeys.length} objects)`,
    );
    // The kills right after uploads leave such sets (nothing removes them yet: no sweep runs here).
    assert.ok(orphanSets.size > 0, 'the crashes left orphaned file sets to check');
    for (const key of orphanKeys) {
      const local = await files.store.localPath(key);
      if (local) await writeFile(local, 'not a parquet file');
    }

    // Each archived record reads once through the API, with its first version from its history.
    for (const id of ids) {
      const read = await app.call('GET', `/api/${schemaPath}/${id}/archive`);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json<Data<{ id: string }>>().data.id, id);
      const first = await app.call('GET', `/api/${schemaPath}/${id}/archive?version=1`);
      assert.equal(first.statusCode, 200, first.body);
    }
    for (const id of kept)
      assert.equal((await app.call('GET', `/api/${schemaPath}/${id}/archive`)).statusCode, 404);
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await app.call('POST', `/api/${schemaPath}/archive/query`, {
        body: { limit: 37, ...(cursor ? { cursor } : {}) },
      });
      assert.equal(page.statusCode, 200, page.body);
      const body = page.json<Data<{ id: string }[]>>();
      seen.push(...body.data.map((row) => row.id));
      cursor = body.pagination?.cursor;
    } while (cursor);
    assert.equal(seen.length, ids.length);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    const sent = await app.call('POST', `/api/${schemaPath}/archive/query`, {
      body: { where: { field: 'status', op: 'eq', value: 'sent' }, limit: 1000 },
    });
    const sentCount = Array.from({ length: serial }, (_, index) => index).filter(
      (index) => index % 3 === 0 && index % 10 !== 9,
    ).length;
    assert.equal(sent.json<Data<unknown[]>>().data.length, sentCount);

    // Audit chains of a sample verify, and each is complete (CREATE, [UPDATE,] ARCHIVE).
    for (const id of ids.filter((_, index) => index % 11 === 0)) {
      const verify = await app.call('POST', '/api/platform/audit/verify', {
        body: { schema: schemaPath, id },
      });
      assert.equal(verify.statusCode, 200, verify.body);
      const result = verify.json<Data<{ valid: boolean; events: number }>>().data;
      assert.equal(result.valid, true, verify.body);
      assert.ok(result.events === 2 || result.events === 3, verify.body);
    }

    // An unarchive of a record from a file after all this: back once, history intact.
    const back = await app.call('POST', `/api/${schemaPath}/${ids[0]}/unarchive`, {
      body: { reason: 'check' },
    });
    assert.equal(back.statusCode, 200, back.body);
    const events = await app.call('GET', `/api/${schemaPath}/${ids[0]}/history?limit=100`);
    assert.deepEqual(
      events.json<Data<{ operation: string }[]>>().data.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'ARCHIVE', 'UNARCHIVE'],
    );
  });

  test('the sweep removes the orphaned file sets and nothing listed', async () => {
    const files = app.service.archiveFiles;
    const job = new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock: systemClock,
      logger: captureLogs('fatal').logger,
      files,
      staleUploadSeconds: 0,
    });
    await job.runOnce();
    const listed = new Set(
      (await fileSetsOf(app.database.pool, schemaPath)).map((entry) => entry.object_prefix),
    );
    const keys = await files.store.list(`${schemaPath}/`);
    assert.deepEqual(
      keys.filter((key) => ![...listed].some((prefix) => key.startsWith(prefix))),
      [],
      'only listed file sets are left',
    );
    assert.equal(keys.length, listed.size * 4);
    // Temporary files of uploads killed mid-copy are not objects (the store lists no dot files); the
    // job's sweep (age 0 here) removed them.
    const leftovers: string[] = [];
    const walk = async (folder: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true }))
        if (entry.isDirectory()) await walk(path.join(folder, entry.name));
        else if (entry.name.startsWith('.tmp-')) leftovers.push(path.join(folder, entry.name));
    };
    await walk(path.join(dataDir, 'archive'));
    assert.deepEqual(leftovers, [], 'temporary upload files left by kills are swept');
    const all = await app.call('POST', `/api/${schemaPath}/archive/query`, { body: { limit: 1000 } });
    // The record brought back above was due again (afterDays 0) and is archived once more.
    assert.equal(all.json<Data<unknown[]>>().data.length, ids.length);
  });
});
