import { withTransaction, type Pool } from '../../../platform/database/pool.js';
import { auditRowsOf, deleteAuditEvents } from '../../audit/audit-repository.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import {
  deleteStagedRows,
  exportLockKey,
  recordsDueForExport,
  stagedCopies,
  stagedMonths,
  stagedHistoryRows,
} from '../archive-repository.js';
import type { ArchiveFiles } from './archive-files.js';
import {
  clearPending,
  insertFileSet,
  markPending,
  stalePending,
  supersedeCopies,
} from './manifest-repository.js';

/** One batch of records due for export, all last archived in `month`. */
export interface DueBatch {
  month: string;
  ids: string[];
}

/**
 * A schema's staged records due for export, in batches of at most `size`: month by month, oldest
 * first, each month in id order. The next batch is asked for only when the previous one is done.
 */
export async function* dueBatches(
  pool: Pool,
  schema: CompiledSchema,
  size: number,
): AsyncGenerator<DueBatch> {
  for (const month of await stagedMonths(pool, schema.path)) {
    let after: string | undefined;
    for (;;) {
      const ids = await recordsDueForExport(pool, schema, month, after, size);
      if (ids.length > 0) yield { month, ids };
      if (ids.length < size) break;
      after = ids[ids.length - 1];
    }
  }
}

/**
 * Exports a schema's staged records due for export into file sets of at most `fileSetSize` records
 * each, at most `maxSets` sets; returns the number of records moved.
 */
export async function exportStaged(
  pool: Pool,
  files: ArchiveFiles,
  schema: CompiledSchema,
  fileSetSize: number,
  maxSets = Number.POSITIVE_INFINITY,
): Promise<number> {
  let moved = 0;
  let sets = 0;
  for await (const due of dueBatches(pool, schema, fileSetSize)) {
    if (sets >= maxSets) break;
    moved += await exportBatch(pool, files, schema, due);
    sets += 1;
  }
  return moved;
}

/**
 * Moves one batch of a schema's archived records out of PostgreSQL into a file set: reads the
 * records' staged copies, history rows and audit events, writes and checks the Parquet files,
 * uploads them, then in one transaction lists the set in the manifest and deletes exactly the rows
 * it holds. A crash before that commit leaves the rows in PostgreSQL and an unlisted set in the
 * store (swept later); after it, the rows are only in the files. A record brought back while its
 * batch was being written keeps its rows (its copy in the set is marked superseded). Returns the
 * number of records moved.
 */
export async function exportBatch(
  pool: Pool,
  files: ArchiveFiles,
  schema: CompiledSchema,
  due: DueBatch,
): Promise<number> {
  const path = schema.path;
  const [records, history, audit] = await Promise.all([
    stagedCopies(pool, path, due.ids),
    stagedHistoryRows(pool, path, due.ids),
    auditRowsOf(pool, path, due.ids),
  ]);
  const entry = await files.upload(
    { definition: schema.definition, records, history, audit },
    due.month,
    (prefix) => markPending(pool, path, prefix),
  );
  try {
    return await withTransaction(pool, async (client) => {
      await clearPending(client, entry.object_prefix);
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [exportLockKey(path)]);
      const { rows } = await client.query<{ id: string }>(
        `SELECT id::text FROM ${schema.table} WHERE id = ANY($1::uuid[])`,
        [due.ids],
      );
      const back = new Set(rows.map((row) => row.id));
      await insertFileSet(client, entry);
      if (back.size > 0) for (const id of back) await supersedeCopies(client, [entry.file_set_id], id);
      const moved = (row: { record_id: string }) => !back.has(row.record_id);
      await deleteStagedRows(client, path, records.filter(moved), history.filter(moved));
      await deleteAuditEvents(
        client,
        audit.filter(moved).map((row) => row.event_id),
      );
      return due.ids.length - back.size;
    });
  } catch (error) {
    // Removed now if the store answers; else the sweep removes them later.
    await files
      .remove(entry.object_prefix)
      .then(() => clearPending(pool, entry.object_prefix))
      .catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the objects of file sets whose upload started more than `ageSeconds` ago and never got
 * listed (an export or rewrite that died), then forgets them; and the store's temporary files of
 * writes that died (unchanged for as long). Listed sets are never touched. Resolves with the
 * number of sets and of temporary files removed.
 */
export async function sweepUnlisted(
  pool: Pool,
  files: ArchiveFiles,
  ageSeconds: number,
): Promise<{ sets: number; temporaryFiles: number }> {
  const stale = await stalePending(pool, ageSeconds);
  for (const prefix of stale) {
    await files.remove(prefix);
    await clearPending(pool, prefix);
  }
  const temporaryFiles = (await files.store.sweepTemporary?.(ageSeconds * 1000)) ?? 0;
  return { sets: stale.length, temporaryFiles };
}
