import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SchemaDefinition } from '../../types.js';
import { duckIdent, duckLiteral, type DuckEngine } from './duck-engine.js';
import { parquetCopyOptions, prunableColumns, recordColumnsSql, type FileKind } from './file-layout.js';

/** An archived copy as the export reads it from staging. */
export interface StagedCopy {
  record_id: string;
  version: number;
  /** ISO 8601, UTC, microseconds. */
  archived_at: string;
  /** The copy's exact JSON text. */
  record: string;
}

/** A history row or audit event as the export reads it: its exact JSON (`row_to_json`). */
export interface StagedRow {
  record_id: string;
  event_id: string;
  row: string;
}

/** What a file set holds, before it is written. */
export interface FileSetContent {
  definition: SchemaDefinition;
  records: StagedCopy[];
  history: StagedRow[];
  audit: StagedRow[];
}

/** One written Parquet file. */
export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
  rows: number;
}

/** A written file set, with what its manifest says. */
export interface WrittenFileSet {
  files: Record<FileKind, WrittenFile>;
  /** Minimum and maximum of each prunable column (text; null when the column holds no value or a value too long to keep). */
  stats: Record<string, [string, string] | null>;
  minArchivedAt: string;
  maxArchivedAt: string;
}

// Longer strings are not kept as bounds: they would bloat the manifest for little pruning.
const maxBoundLength = 200;

async function fileFacts(file: string, rows: number): Promise<WrittenFile> {
  const bytes = await readFile(file);
  return {
    path: file,
    bytes: (await stat(file)).size,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    rows,
  };
}

async function loadRows(
  connection: DuckDBConnection,
  table: string,
  columns: string[],
  rows: (string | number)[][],
): Promise<void> {
  await connection.run(
    `CREATE TEMP TABLE ${table} (${columns.map((name) => `${duckIdent(name)} VARCHAR`).join(', ')})`,
  );
  const appender = await connection.createAppender(table);
  for (const row of rows) {
    for (const value of row) appender.appendVarchar(String(value));
    appender.endRow();
  }
  appender.closeSync();
}

/** The number of rows a written Parquet file holds, read back from the file (the write's check). */
async function countRows(connection: DuckDBConnection, file: string): Promise<number> {
  const reader = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM read_parquet(${duckLiteral(file)})`,
  );
  return Number((reader.getRowObjectsJS()[0] as { n: bigint }).n);
}

/**
 * Writes a file set's three Parquet files (ZSTD) into the folder `directory` and checks each by
 * reading its row count back. `records.parquet` has the schema's typed columns computed from each
 * copy's JSON; the bounds of the prunable columns come from the written file.
 */
export async function writeFileSet(
  engine: DuckEngine,
  content: FileSetContent,
  directory: string,
): Promise<WrittenFileSet> {
  const target = (kind: FileKind) => path.join(directory, `${kind}.parquet`);
  return engine.withConnection(async (connection) => {
    await loadRows(
      connection,
      'staged_records',
      ['record_id', 'version', 'archived_at', 'record'],
      content.records.map((copy) => [copy.record_id, copy.version, copy.archived_at, copy.record]),
    );
    await loadRows(
      connection,
      'staged_history',
      ['record_id', 'event_id', 'row'],
      content.history.map((row) => [row.record_id, row.event_id, row.row]),
    );
    await loadRows(
      connection,
      'staged_audit',
      ['record_id', 'event_id', 'row'],
      content.audit.map((row) => [row.record_id, row.event_id, row.row]),
    );
    const options = parquetCopyOptions;
    await connection.run(
      `COPY (SELECT ${recordColumnsSql(content.definition).join(', ')}, CAST(archived_at AS TIMESTAMPTZ) AS __archived_at, __record
        FROM (SELECT archived_at, record AS __record FROM staged_records)
        ORDER BY "id", __archived_at) TO ${duckLiteral(target('records'))} ${options}`,
    );
    for (const kind of ['history', 'audit'] as const)
      await connection.run(
        `COPY (SELECT CAST(record_id AS UUID) AS record_id, CAST(event_id AS BIGINT) AS event_id, "row"
          FROM staged_${kind} ORDER BY record_id, event_id) TO ${duckLiteral(target(kind))} ${options}`,
      );
    const described = await describeFileSet(connection, directory, content.definition);
    const expected = {
      records: content.records.length,
      history: content.history.length,
      audit: content.audit.length,
    };
    for (const kind of ['records', 'history', 'audit'] as const)
      if (described.files[kind].rows !== expected[kind])
        throw new Error(
          `archive file ${kind}.parquet holds ${described.files[kind].rows} rows, expected ${expected[kind]}`,
        );
    return described;
  });
}

/**
 * What the three Parquet files in `directory` hold, read back from the files: rows, bytes and
 * SHA-256 of each, the archival time range and the bounds of the prunable columns.
 */
export async function describeFileSet(
  connection: DuckDBConnection,
  directory: string,
  definition: SchemaDefinition,
): Promise<WrittenFileSet> {
  const target = (kind: FileKind) => path.join(directory, `${kind}.parquet`);
  const files = {} as Record<FileKind, WrittenFile>;
  for (const kind of ['records', 'history', 'audit'] as const)
    files[kind] = await fileFacts(target(kind), await countRows(connection, target(kind)));
  const prunable = prunableColumns(definition);
  const bounds = prunable.flatMap((column) => [
    `min(${duckIdent(column.name)})::VARCHAR`,
    `max(${duckIdent(column.name)})::VARCHAR`,
  ]);
  const reader = await connection.runAndReadAll(
    `SELECT strftime(min(__archived_at), '%Y-%m-%dT%H:%M:%S.%fZ') AS lo, strftime(max(__archived_at), '%Y-%m-%dT%H:%M:%S.%fZ') AS hi${bounds.length > 0 ? `, ${bounds.join(', ')}` : ''}
       FROM read_parquet(${duckLiteral(target('records'))})`,
  );
  const row = reader.getRowsJS()[0] as (string | null)[];
  const stats: WrittenFileSet['stats'] = {};
  prunable.forEach((column, index) => {
    const low = row[2 + index * 2] ?? null;
    const high = row[3 + index * 2] ?? null;
    stats[column.name] =
      low === null || high === null || low.length > maxBoundLength || high.length > maxBoundLength
        ? null
        : [low, high];
  });
  return { files, stats, minArchivedAt: row[0]!, maxArchivedAt: row[1]! };
}
