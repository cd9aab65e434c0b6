/**
 * npm run bench:archive — the records archive in Parquet files at scale. An eight-field schema with
 * history and audit holds BENCH_RECORDS records (default 1,000,000, inserted set-wise by the owner so
 * the change trigger writes their history and audit); then, in one run:
 * - before archiving, the floors: a selective `POST /query` (an indexed `bucket eq`, 10 matches) and
 *   an aggregate (count, sum, avg by status) in SQL over the hot table;
 * - bytes per record in hot storage (table, indexes, TOAST of the schema table and its history
 *   table, the schema's share of the audit log by rows);
 * - the archive job with a clock moved 31 days on: hot → staging (one `runOnce` without files), then
 *   staging → file sets (`runOnce` with files), each timed;
 * - bytes per record archived (the object store's files plus what PostgreSQL still keeps: the
 *   manifest and whatever staging holds after VACUUM);
 * - the same selective query through `POST /archive/query`, and the same aggregate by DuckDB over
 *   the records files (the archive query has no aggregates: this is the engine's scan cost).
 * Not a test: it prints figures. BENCH_QUERY_RUNS (default 50) timed queries per side after 3
 * warm-ups; BENCH_ARCHIVE_BATCH (default 100, the job's) records per staging transaction;
 * BENCH_DATABASE_URL another server; BENCH_KEEP=1 keeps the database and files.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { loadConfig } from '../src/platform/config/index.js';
import { createPool } from '../src/platform/database/pool.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { ArchiveJob } from '../src/records/archive/archive-job.js';
import { fileSetsOf } from '../src/records/archive/files/manifest-repository.js';
import { recordsDueForExport, stagedMonths } from '../src/records/archive/archive-repository.js';
import { duckLiteral } from '../src/records/archive/files/duck-engine.js';
import { historyTable } from '../src/records/ddl/change-triggers.js';
import { createRecordsService, prepareRecordsDatabase } from '../src/records/index.js';
import { auditShareBytes, directoryBytes, partitionedBytes, relationBytes } from './archive/disk.js';
import {
  benchArchivePath,
  benchArchiveYaml,
  insertBenchRecords,
  recordsPerBucket,
} from './archive/schema.js';
import { startBenchServer } from './support/bench-database.js';
import { percentile } from './support/concurrency.js';
import { median } from './support/interleave.js';

const records = Number(process.env.BENCH_RECORDS ?? '1000000');
const queryRuns = Number(process.env.BENCH_QUERY_RUNS ?? '50');
const archiveBatch = Number(process.env.BENCH_ARCHIVE_BATCH ?? '100');
const insertBatch = 50_000;
const scanRuns = 5;
const day = 86_400_000;
const jwtSecret = 'bench-archive-secret-0123456789abcdef0123';
const buckets = Math.max(1, Math.floor(records / recordsPerBucket));

const progress = (message: string) =>
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const seconds = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
};
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

const server = await startBenchServer();
const scratch = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-archive-'));
try {
  const url = await server.createDatabase(`weft_bench_archive_${records}`);
  const resourcesDir = path.join(scratch, 'resources');
  const dataDir = path.join(scratch, 'data');
  await mkdir(resourcesDir);
  await mkdir(dataDir);
  await writeFile(path.join(resourcesDir, 'entries.yaml'), benchArchiveYaml);
  const logger = createLogger('warn');
  const pool = createPool(url, { max: 10, applicationName: 'bench-archive', logger });
  await prepareRecordsDatabase(pool, logger);
  const config = loadConfig({
    RECORDS_DATABASE_URL: url,
    RECORDS_RESOURCES_DIR: resourcesDir,
    WEFT_DATA_DIR: dataDir,
    RECORDS_JWT_SECRET: jwtSecret,
    RECORDS_RATE_LIMIT_PER_MINUTE: '1000000000',
    RECORDS_ARCHIVE_RATE_LIMIT: '1000000000',
    WEFT_LOG_LEVEL: 'warn',
  });
  const service = await createRecordsService({ config, pool, logger });
  // The service's own archive job (real clock) would export staged records during the timed runs.
  await service.archive.close();
  try {
    const schema = service.registry.all().find((candidate) => candidate.path === benchArchivePath);
    if (!schema) throw new Error(`schema ${benchArchivePath} not loaded`);
    const history = historyTable(schema.definition);
    const token = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench')
      .setExpirationTime('12h')
      .sign(new TextEncoder().encode(jwtSecret));

    progress(`inserting ${records} records in batches of ${insertBatch}`);
    const insertSeconds = await seconds(async () => {
      for (let from = 0; from < records; from += insertBatch) {
        await insertBenchRecords(pool, schema.table, from, Math.min(records, from + insertBatch), buckets);
        progress(`  ${Math.min(records, from + insertBatch)} inserted`);
      }
    });
    for (const table of [schema.table, history, 'records.audit_events'])
      await pool.query(`VACUUM ANALYZE ${table}`);

    // Selective query: a bucket chosen at random per run, 10 records each.
    const timeQueries = async (route: string) => {
      const call = async () => {
        const response = await service.app.inject({
          method: 'POST',
          url: `/api/${benchArchivePath}/${route}`,
          headers: { authorization: `Bearer ${token}` },
          payload: {
            where: { field: 'bucket', op: 'eq', value: Math.floor(Math.random() * buckets) },
            limit: 20,
          },
        });
        if (response.statusCode !== 200) throw new Error(`${route}: ${response.statusCode} ${response.body}`);
        const rows = (response.json<{ data: unknown[] }>().data ?? []).length;
        if (rows !== Math.min(recordsPerBucket, records)) throw new Error(`${route}: ${rows} rows`);
      };
      const first = await seconds(call);
      for (let warm = 0; warm < 2; warm += 1) await call();
      const timings: number[] = [];
      for (let run = 0; run < queryRuns; run += 1) timings.push((await seconds(call)) * 1000);
      timings.sort((a, b) => a - b);
      return { firstMs: first * 1000, p50: percentile(timings, 50), p95: percentile(timings, 95) };
    };
    const aggregate = (from: string) =>
      `SELECT status, count(*) AS n, sum(amount) AS total, avg(bucket) AS mean FROM ${from} GROUP BY status ORDER BY status`;
    const timeScan = async (run: () => Promise<unknown>) => {
      await run();
      const timings: number[] = [];
      for (let index = 0; index < scanRuns; index += 1) timings.push((await seconds(run)) * 1000);
      return median(timings);
    };

    progress('hot floors');
    const hotQuery = await timeQueries('query');
    const hotScanMs = await timeScan(() => pool.query(aggregate(schema.table)));
    const hotCounts = (await pool.query<{ n: string }>(aggregate(schema.table))).rows.map((row) =>
      Number(row.n),
    );
    const hot = {
      table: await relationBytes(pool, schema.table),
      history: await relationBytes(pool, history),
      audit: await auditShareBytes(pool, schema.path),
    };
    const hotBytes = hot.table + hot.history + hot.audit;

    const clock = { now: () => new Date(Date.now() + 31 * day) };
    const maxBatches = Math.ceil(records / archiveBatch) + 10;
    const job = (files: boolean) =>
      new ArchiveJob({
        pool,
        registry: service.registry,
        clock,
        logger,
        batchSize: archiveBatch,
        maxBatches,
        ...(files ? { files: service.archiveFiles } : {}),
      });
    progress('archiving: hot → staging');
    let staged = 0;
    const stageSeconds = await seconds(async () => {
      staged = await job(false).runOnce();
    });
    if (staged !== records) throw new Error(`staged ${staged} of ${records}`);
    // The export asks for the months once per run, then one page of due ids per file set.
    const dueSeconds = await seconds(async () => {
      const [month] = await stagedMonths(pool, schema.path);
      if (month !== undefined) await recordsDueForExport(pool, schema, month, undefined, 50_000);
    });
    progress(`archiving: staging → files (${stageSeconds.toFixed(0)} s staging)`);
    const exportSeconds = await seconds(() => job(true).runOnce());
    const entries = await fileSetsOf(pool, schema.path);
    const inFiles = entries.reduce((sum, entry) => sum + entry.record_count, 0);
    if (inFiles !== records) throw new Error(`files hold ${inFiles} of ${records}`);

    for (const table of [
      'records_archive.records',
      'records_archive.history',
      'records_archive.files',
      'records.audit_events',
    ])
      await pool.query(`VACUUM ANALYZE ${table}`);
    const store = await directoryBytes(path.join(dataDir, 'archive'));
    const kindBytes = (kind: 'records' | 'history' | 'audit') =>
      entries.reduce((sum, entry) => sum + entry.files[kind].bytes, 0);
    const cold = {
      files: store.bytes,
      manifest:
        (await relationBytes(pool, 'records_archive.files')) +
        (await relationBytes(pool, 'records_archive.superseded_copies')),
      staging:
        (await partitionedBytes(pool, 'records_archive.records')) +
        (await partitionedBytes(pool, 'records_archive.history')),
    };
    // Staging's emptied pages (index pages mostly) are free space the next archive run reuses, not
    // bytes the archived records occupy: shown apart, left out of the ratio.
    const coldBytes = cold.files + cold.manifest;

    progress('archive queries');
    const coldQuery = await timeQueries('archive/query');
    const recordFiles = `[${(
      await Promise.all(entries.map((entry) => service.archiveFiles.localFile(entry, 'records')))
    )
      .map(duckLiteral)
      .join(', ')}]`;
    const duckAggregate = aggregate(`read_parquet(${recordFiles})`);
    const coldScanMs = await timeScan(() => service.archiveFiles.engine.rows(duckAggregate));
    const coldCounts = (await service.archiveFiles.engine.rows<{ n: bigint }>(duckAggregate)).map((row) =>
      Number(row.n),
    );
    if (JSON.stringify(coldCounts) !== JSON.stringify(hotCounts))
      throw new Error(`aggregate differs: hot ${hotCounts.join(',')} files ${coldCounts.join(',')}`);

    const { rows: version } = await pool.query<{ server_version: string }>('SHOW server_version');
    const perRecord = (bytes: number) => (bytes / records).toFixed(0);
    const lines: [string, string, string, string][] = [
      ['records', records.toLocaleString('en'), '', ''],
      [
        'insert (set-wise, trigger on)',
        `${(records / insertSeconds).toFixed(0)} records/s`,
        `${insertSeconds.toFixed(0)} s`,
        '',
      ],
      [
        'archive job, whole (hot → files)',
        `${(records / (stageSeconds + exportSeconds)).toFixed(0)} records/s`,
        `${(stageSeconds + exportSeconds).toFixed(0)} s`,
        '',
      ],
      [
        '  hot → staging',
        `${(records / stageSeconds).toFixed(0)} records/s`,
        `${stageSeconds.toFixed(0)} s`,
        `batch ${archiveBatch}`,
      ],
      [
        '  staging → files',
        `${(records / exportSeconds).toFixed(0)} records/s`,
        `${exportSeconds.toFixed(0)} s`,
        `${entries.length} file sets`,
      ],
      [
        '  due-for-export: months, first set',
        `${(dueSeconds * 1000).toFixed(0)} ms`,
        'months once per run, a page per file set',
        '',
      ],
      [
        'bytes/record hot',
        perRecord(hotBytes),
        `table ${mib(hot.table)}, history ${mib(hot.history)}, audit ${mib(hot.audit)}`,
        '',
      ],
      [
        'bytes/record archived',
        perRecord(coldBytes),
        `files ${mib(cold.files)} (${store.files} objects), manifest ${mib(cold.manifest)}`,
        '',
      ],
      [
        '  Parquet bytes/record by file',
        `${perRecord(kindBytes('records'))} + ${perRecord(kindBytes('history'))} + ${perRecord(kindBytes('audit'))}`,
        'records + history + audit',
        '',
      ],
      ['  staging left after VACUUM', mib(cold.staging), 'free pages of the emptied staging tables', ''],
      ['archived / hot bytes', (coldBytes / hotBytes).toFixed(3), '', 'target ≤ 0.2'],
      [
        'selective query hot (floor)',
        `p50 ${hotQuery.p50.toFixed(1)} ms`,
        `p95 ${hotQuery.p95.toFixed(1)} ms, first ${hotQuery.firstMs.toFixed(0)} ms`,
        '',
      ],
      [
        'selective query archive',
        `p50 ${coldQuery.p50.toFixed(1)} ms`,
        `p95 ${coldQuery.p95.toFixed(1)} ms, first ${coldQuery.firstMs.toFixed(0)} ms`,
        'target p50 < 200 ms',
      ],
      ['  archive / hot p50', (coldQuery.p50 / hotQuery.p50).toFixed(1), '', ''],
      ['aggregate scan hot (SQL)', `${hotScanMs.toFixed(0)} ms`, `median of ${scanRuns}`, ''],
      ['aggregate scan files (DuckDB)', `${coldScanMs.toFixed(0)} ms`, `median of ${scanRuns}`, ''],
      ['  files / hot', (coldScanMs / hotScanMs).toFixed(2), '', ''],
    ];
    console.log(
      `\nbench:archive — ${records.toLocaleString('en')} records, ${queryRuns} timed queries per side, ${server.describe}`,
    );
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, PostgreSQL ${version[0]?.server_version}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
    );
    for (const [name, figure, detail, target] of lines)
      console.log(`${name.padEnd(34)} ${figure.padStart(18)}   ${detail.padEnd(64)} ${target}`);
  } finally {
    await service.close();
    await pool.end();
  }
} finally {
  if (process.env.BENCH_KEEP !== '1') {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  } else progress(`kept ${scratch}`);
}
