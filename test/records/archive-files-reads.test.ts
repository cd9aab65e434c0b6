import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import type { ArchiveFiles } from '../../src/records/archive/files/archive-files.js';
import { snapshotTable } from '../../src/records/history/snapshot-job.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

/**
 * Reads of records in archive files that must stay bounded: archive query pages read DuckDB's
 * candidates a fixed chunk at a time, snapshots take the files' history states in batches, and an
 * unarchive from files reads the files twice.
 */

const path = 'acme/ops/fleet/entries/v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: entries-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: entries
  version: v1
  timeMachine: true
  fields:
    - { name: line, type: string, required: true, filterable: true }
    - { name: body, type: json, filterable: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;
const day = 86_400_000;
type Data<T> = { data: T; pagination?: { has_more: boolean; cursor: string | null } };
type Entry = { id: string; version: number; line: string; updated_at: string };

describe('bounded reads of records in archive files', () => {
  let app: RecordsTestApp;
  let files: ArchiveFiles;
  /** What requests read through (bounded by the statement timeout). */
  let requestFiles: ArchiveFiles;
  const clock = new MovableClock();
  const archive = (toFiles: boolean) =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      ...(toFiles ? { files: app.service.archiveFiles, fileSetSize: 40 } : {}),
    }).runOnce();
  const create = async (line: string, body: unknown) => {
    const response = await app.call('POST', `/api/${path}`, { body: { line, body } });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<Entry>>().data;
  };
  /** Every page of an archive query through its cursors. */
  const pages = async (body: Record<string, unknown>) => {
    const all: { has_more: boolean; ids: string[] }[] = [];
    let cursor: string | null | undefined;
    do {
      const response = await app.call('POST', `/api/${path}/archive/query`, {
        body: { ...body, ...(cursor ? { cursor } : {}) },
      });
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json<Data<{ id: string }[]>>();
      all.push({ has_more: page.pagination!.has_more, ids: page.data.map((row) => row.id) });
      cursor = page.pagination?.cursor;
    } while (cursor);
    return all;
  };

  before(async () => {
    app = await startRecordsApp({}, { resources: { 'entries.yaml': yaml } });
    files = app.service.archiveFiles;
    requestFiles = app.service.requestArchiveFiles;
  });
  after(() => app.close());

  const rare: { round: number; id: string }[] = [];
  test('pages stay complete when PostgreSQL rejects most candidates; each DuckDB read asks one fixed chunk', async () => {
    // Three archivals: two exported to file sets of 40, the newest left staged.
    for (let round = 0; round < 3; round += 1) {
      for (let index = 0; index < 100; index += 1) {
        const tag = (round * 100 + index) % 23 === 5 ? 'rare' : 'common';
        const entry = await create(`r${round}-${index}`, { tag, index });
        if (tag === 'rare') rare.push({ round, id: entry.id });
      }
      clock.advance(31 * day);
      assert.equal(await archive(round < 2), 100);
    }
    // Newest archival first, then id; DuckDB cannot test JSON containment, so PostgreSQL decides.
    const expected = [...rare]
      .sort((a, b) => b.round - a.round || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((entry) => entry.id);
    assert.equal(expected.length, 13);
    const where = { field: 'body', op: 'contains', value: { tag: 'rare' } };

    const unbounded = await pages({ where, limit: 5 });
    const asked: number[] = [];
    const returned: number[] = [];
    const candidates = requestFiles.candidates.bind(requestFiles);
    requestFiles.candidateChunk = 8;
    requestFiles.candidates = async (...args: Parameters<ArchiveFiles['candidates']>) => {
      asked.push(args[4]);
      const rows = await candidates(...args);
      returned.push(rows.length);
      return rows;
    };
    try {
      const chunked = await pages({ where, limit: 5 });
      assert.deepEqual(
        chunked.map((page) => page.ids.length),
        [5, 5, 3],
      );
      assert.deepEqual(
        chunked.map((page) => page.has_more),
        [true, true, false],
      );
      assert.deepEqual(
        chunked.flatMap((page) => page.ids),
        expected,
      );
      assert.deepEqual(chunked, unbounded, 'the same pages as with one large chunk');
      assert.ok(
        asked.every((limit) => limit === 8),
        `asked ${asked.join(',')}`,
      );
      assert.ok(returned.every((rows) => rows <= 8));
      // 200 copies in files, 8 at a time: the pages read forward through all of them.
      assert.ok(asked.length >= 200 / 8, `${asked.length} DuckDB reads`);

      // A dense query is decided from its first chunk.
      asked.length = 0;
      const dense = await app.call('POST', `/api/${path}/archive/query`, { body: { limit: 3 } });
      assert.equal(dense.json<Data<unknown[]>>().data.length, 3);
      assert.equal(asked.length, 1);
    } finally {
      requestFiles.candidateChunk = 1024;
      Reflect.deleteProperty(requestFiles, 'candidates');
    }
  });

  const mine: Entry[] = [];
  test('a snapshot takes the history states in files batch by batch, with the same rows as in one batch', async () => {
    for (let index = 0; index < 10; index += 1) mine.push(await create(`s-${index}`, null));
    const instant = mine[mine.length - 1]!.updated_at;
    for (const entry of mine) {
      const patched = await app.call('PATCH', `/api/${path}/${entry.id}`, {
        body: { version: 1, line: `${entry.line}-later` },
      });
      assert.equal(patched.statusCode, 200, patched.body);
    }
    clock.advance(31 * day);
    assert.equal(await archive(true), 10);
    const staged = await app.database.pool.query(
      `SELECT 1 FROM records_archive.records WHERE schema_path = $1`,
      [path],
    );
    assert.equal(staged.rowCount, 0, 'every record is in files');

    const snapshot = async () => {
      const requested = await app.call('POST', `/api/${path}/history/snapshot`, {
        body: { at: instant, reason: 'batches' },
      });
      assert.equal(requested.statusCode, 202, requested.body);
      const id = requested.json<Data<{ snapshot_id: string }>>().data.snapshot_id;
      await app.service.snapshots.runPending();
      const { rows } = await app.database.pool.query<{ status: string; row_count: number }>(
        `SELECT status, row_count::int AS row_count FROM records.snapshots WHERE snapshot_id = $1`,
        [id],
      );
      assert.deepEqual(rows[0], { status: 'completed', row_count: 310 });
      const table = await app.database.pool.query<{ id: string; line: string; version: number }>(
        `SELECT id::text, line, version FROM ${snapshotTable(id)} ORDER BY id`,
      );
      return table.rows;
    };
    const whole = await snapshot();
    files.historyBatch = 3;
    try {
      const batches: number[] = [];
      for await (const batch of files.historyAsOf(app.database.pool, path, instant))
        batches.push(batch.length);
      assert.ok(batches.length >= 310 / 3, `${batches.length} batches`);
      assert.ok(batches.every((size) => size <= 3));
      assert.equal(
        batches.reduce((sum, size) => sum + size, 0),
        310,
      );
      const batched = await snapshot();
      assert.deepEqual(batched, whole);
      // Each record as it was at the instant: before its later patch.
      for (const entry of mine)
        assert.deepEqual(
          batched.find((row) => row.id === entry.id),
          { id: entry.id, line: entry.line, version: 1 },
        );
    } finally {
      files.historyBatch = 5000;
    }
  });

  test('an unarchive from files reads the files twice, and brings back the events of every set holding the record', async () => {
    const entry = mine[0]!;
    const operations = async () =>
      (await app.call('GET', `/api/${path}/${entry.id}/history?limit=100`))
        .json<Data<{ operation: string }[]>>()
        .data.map((event) => event.operation);
    const first = await app.call('POST', `/api/${path}/${entry.id}/unarchive`, { body: { reason: 'look' } });
    assert.equal(first.statusCode, 200, first.body);
    const patched = await app.call('PATCH', `/api/${path}/${entry.id}`, {
      body: { version: first.json<Data<Entry>>().data.version, line: 'again' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    clock.advance(31 * day);
    assert.equal(await archive(true), 1);
    // Copies in two sets now: the first superseded, the second current.
    const sets = await app.database.pool.query(
      `SELECT 1 FROM records_archive.superseded_copies WHERE record_id = $1`,
      [entry.id],
    );
    assert.equal(sets.rowCount, 1);

    const rows = requestFiles.engine.rows.bind(requestFiles.engine);
    let reads = 0;
    requestFiles.engine.rows = async <T>(...args: Parameters<typeof rows>): Promise<T[]> => {
      reads += 1;
      return rows<T>(...args);
    };
    try {
      const back = await app.call('POST', `/api/${path}/${entry.id}/unarchive`, {
        body: { reason: 'again' },
      });
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(back.json<Data<Entry>>().data.line, 'again');
    } finally {
      Reflect.deleteProperty(requestFiles.engine, 'rows');
    }
    // The record's copies (the service's check and the restage share them), then its events.
    assert.equal(reads, 2);
    assert.deepEqual(await operations(), [
      'CREATE',
      'UPDATE',
      'ARCHIVE',
      'UNARCHIVE',
      'UPDATE',
      'ARCHIVE',
      'UNARCHIVE',
    ]);
    const verify = (
      await app.call('POST', '/api/platform/audit/verify', { body: { schema: path, id: entry.id } })
    ).json<Data<{ valid: boolean; events: number }>>().data;
    assert.deepEqual([verify.valid, verify.events], [true, 7]);
  });
});
