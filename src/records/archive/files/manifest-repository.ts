import { isoUtcSql } from '../../../platform/database/iso-utc-sql.js';
import type { Queryable } from '../../../platform/database/queryable.js';
import { statement } from '../../records/statement.js';
import type { FileKind } from './file-layout.js';

/** A file set as the manifest (`records_archive.files`, migration 0020) lists it. */
export interface FileSetEntry {
  file_set_id: string;
  schema_path: string;
  /** `YYYY-MM`. */
  month: string;
  object_prefix: string;
  record_count: number;
  history_count: number;
  audit_count: number;
  /** ISO 8601 UTC. */
  min_archived_at: string;
  max_archived_at: string;
  files: Record<FileKind, { bytes: number; sha256: string }>;
  column_bounds: Record<string, [string, string] | null>;
}

const entryColumns = `file_set_id::text, schema_path, to_char(month, 'YYYY-MM') AS month, object_prefix,
  record_count, history_count, audit_count, ${isoUtcSql('min_archived_at')} AS min_archived_at,
  ${isoUtcSql('max_archived_at')} AS max_archived_at, files, column_bounds`;

/** The file sets of a schema, newest archival first. */
export async function fileSetsOf(db: Queryable, schemaPath: string): Promise<FileSetEntry[]> {
  const { rows } = await db.query<FileSetEntry>(
    statement(
      `SELECT ${entryColumns} FROM records_archive.files WHERE schema_path = $1 ORDER BY max_archived_at DESC, file_set_id`,
      [schemaPath],
    ),
  );
  return rows;
}

/** Adds a file set to the manifest (in the transaction that removes its rows from PostgreSQL). */
export async function insertFileSet(db: Queryable, entry: FileSetEntry): Promise<void> {
  await db.query(
    statement(
      `INSERT INTO records_archive.files (file_set_id, schema_path, month, object_prefix, record_count, history_count,
         audit_count, min_archived_at, max_archived_at, files, column_bounds)
       VALUES ($1, $2, ($3 || '-01')::date, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        entry.file_set_id,
        entry.schema_path,
        entry.month,
        entry.object_prefix,
        entry.record_count,
        entry.history_count,
        entry.audit_count,
        entry.min_archived_at,
        entry.max_archived_at,
        JSON.stringify(entry.files),
        JSON.stringify(entry.column_bounds),
      ],
    ),
  );
}

/** The object prefixes the manifest lists for a schema (the sweep keeps these). */
export async function listedPrefixes(db: Queryable, schemaPath: string): Promise<Set<string>> {
  const { rows } = await db.query<{ object_prefix: string }>(
    statement(`SELECT object_prefix FROM records_archive.files WHERE schema_path = $1`, [schemaPath]),
  );
  return new Set(rows.map((row) => row.object_prefix));
}

/** Marks the copies of `recordId` in `fileSetIds` as superseded (the record is back in PostgreSQL). */
export async function supersedeCopies(
  db: Queryable,
  fileSetIds: readonly string[],
  recordId: string,
): Promise<void> {
  await db.query(
    statement(
      `INSERT INTO records_archive.superseded_copies (file_set_id, record_id)
       SELECT unnest($1::uuid[]), $2::uuid ON CONFLICT DO NOTHING`,
      [fileSetIds, recordId],
    ),
  );
}

/** Of the `(file set, record)` pairs given, those whose copy is current (not superseded). */
export async function currentCopies(
  db: Queryable,
  pairs: readonly { file_set_id: string; record_id: string }[],
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const { rows } = await db.query<{ file_set_id: string; record_id: string }>(
    statement(
      `SELECT x.file_set_id::text, x.record_id::text FROM unnest($1::uuid[], $2::uuid[]) AS x(file_set_id, record_id)
       WHERE NOT EXISTS (SELECT 1 FROM records_archive.superseded_copies s WHERE s.file_set_id = x.file_set_id AND s.record_id = x.record_id)`,
      [pairs.map((pair) => pair.file_set_id), pairs.map((pair) => pair.record_id)],
    ),
  );
  return new Set(rows.map((row) => `${row.file_set_id}/${row.record_id}`));
}

/** Records that a file set is about to be uploaded (committed before its first object). */
export async function markPending(db: Queryable, schemaPath: string, prefix: string): Promise<void> {
  await db.query(
    statement(`INSERT INTO records_archive.pending_file_sets (object_prefix, schema_path) VALUES ($1, $2)`, [
      prefix,
      schemaPath,
    ]),
  );
}

/** Forgets a pending file set (listed now, or its objects removed). */
export async function clearPending(db: Queryable, prefix: string): Promise<void> {
  await db.query(
    statement(`DELETE FROM records_archive.pending_file_sets WHERE object_prefix = $1`, [prefix]),
  );
}

/**
 * Pending file sets started more than `ageSeconds` ago by the database's clock (exports that
 * died): their objects are to be removed.
 */
export async function stalePending(db: Queryable, ageSeconds: number): Promise<string[]> {
  const { rows } = await db.query<{ object_prefix: string }>(
    statement(
      `SELECT object_prefix FROM records_archive.pending_file_sets WHERE started_at < now() - make_interval(secs => $1) ORDER BY started_at LIMIT 100`,
      [ageSeconds],
    ),
  );
  return rows.map((row) => row.object_prefix);
}

/** Removes a file set from the manifest; false when it was not listed (another instance replaced it). */
export async function deleteFileSet(db: Queryable, fileSetId: string): Promise<boolean> {
  const result = await db.query(
    statement(`DELETE FROM records_archive.files WHERE file_set_id = $1`, [fileSetId]),
  );
  return result.rowCount === 1;
}

/** The records whose copies in a file set are superseded. */
export async function supersededIn(db: Queryable, fileSetId: string): Promise<string[]> {
  const { rows } = await db.query<{ record_id: string }>(
    statement(`SELECT record_id::text FROM records_archive.superseded_copies WHERE file_set_id = $1`, [
      fileSetId,
    ]),
  );
  return rows.map((row) => row.record_id);
}
