import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Pool } from '../../src/platform/database/pool.js';

/** `pg_total_relation_size` (table, indexes, TOAST) of `relation`, in bytes. */
export async function relationBytes(pool: Pool, relation: string): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT pg_total_relation_size($1::regclass)::bigint AS bytes`,
    [relation],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** The same summed over a partitioned table's partitions (and the parent's own indexes, none). */
export async function partitionedBytes(pool: Pool, parent: string): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(relid)), 0)::bigint AS bytes
     FROM pg_partition_tree($1::regclass)`,
    [parent],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/**
 * The schema's share of `records.audit_events` by row count, times the table's total size: the
 * audit log is shared by every schema, so its bytes are apportioned by rows.
 */
export async function auditShareBytes(pool: Pool, schemaPath: string): Promise<number> {
  const { rows } = await pool.query<{ mine: string; total: string }>(
    `SELECT count(*) FILTER (WHERE schema_path = $1) AS mine, count(*) AS total FROM records.audit_events`,
    [schemaPath],
  );
  const mine = Number(rows[0]?.mine ?? 0);
  const total = Number(rows[0]?.total ?? 0);
  if (total === 0) return 0;
  return ((await relationBytes(pool, 'records.audit_events')) * mine) / total;
}

/** Bytes of every file under `directory` (recursively), and how many files. */
export async function directoryBytes(directory: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
    files += 1;
  }
  return { bytes, files };
}
