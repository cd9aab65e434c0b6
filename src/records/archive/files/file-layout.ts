import { schemaColumns, type ColumnInfo } from '../../schemas/compiled-schema.js';
import type { FieldType, SchemaDefinition } from '../../types.js';
import { duckIdent, duckLiteral } from './duck-engine.js';

/**
 * How archived records sit in object storage (docs/records/archive.md, "Files"). An export writes
 * a file set: three Parquet files and a manifest under `<schema path>/<YYYY-MM>/<file set id>/`,
 * the month being the UTC month of archival.
 *
 * - `records.parquet`: one row per archived copy, sorted by `id`: every column of the schema
 *   (system fields and fields) typed for queries, plus `__archived_at` and `__record`, the copy's
 *   exact JSON text (what the API shows; numbers keep every digit);
 * - `history.parquet` and `audit.parquet`: the record's history rows and audit events, each row's
 *   exact JSON (`row_to_json`) with `record_id` and `event_id` to find it, sorted by both;
 * - `manifest.json.gz`: what the set holds (ids and versions, time range, counts, checksums).
 */

/** The Parquet files of a file set. */
export const fileKinds = ['records', 'history', 'audit'] as const;
/** One of them. */
export type FileKind = (typeof fileKinds)[number];

/**
 * The `COPY … TO` options of every archive Parquet file. Small row groups let a selective query
 * read the large `__record` column only where its filter matched (docs/benchmarks.md,
 * bench:archive); ZSTD level 6 makes the files about 5 % smaller than the default level 3 for about
 * twice the compression time, which is a small part of an export.
 */
export const parquetCopyOptions =
  '(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 6, ROW_GROUP_SIZE 8192)';

/** The DuckDB type each field type is queried as. */
const duckTypes: Record<FieldType, string> = {
  string: 'VARCHAR',
  enum: 'VARCHAR',
  integer: 'BIGINT',
  // Exact digits stay in `__record`; comparisons run on doubles (docs: "Query semantics").
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  date: 'DATE',
  json: 'JSON',
  uuid: 'UUID',
};

/** The DuckDB type of a column. */
export function duckType(column: Pick<ColumnInfo, 'type'>): string {
  return duckTypes[column.type];
}

/** The object key prefix of a file set. */
export function fileSetPrefix(schemaPath: string, month: string, fileSetId: string): string {
  return `${schemaPath}/${month}/${fileSetId}/`;
}

/** The object key of one file of a set. */
export function fileKey(prefix: string, kind: FileKind | 'manifest'): string {
  return kind === 'manifest' ? `${prefix}manifest.json.gz` : `${prefix}${kind}.parquet`;
}

/**
 * The typed columns of `records.parquet`, each computed from the copy's JSON (`__record`) as
 * DuckDB SQL: a JSON null is SQL NULL, as the column is in the schema's table.
 */
export function recordColumnsSql(definition: SchemaDefinition): string[] {
  return [...schemaColumns(definition).values()].map((column) => {
    const path = duckLiteral(`$.${JSON.stringify(column.name)}`);
    const value =
      column.type === 'json'
        ? `CASE WHEN json_type(__record, ${path}) IS NULL OR json_type(__record, ${path}) = 'NULL' THEN NULL ELSE json_extract(__record, ${path}) END`
        : `CAST(json_extract_string(__record, ${path}) AS ${duckType(column)})`;
    return `${value} AS ${duckIdent(column.name)}`;
  });
}

/** Columns whose per-file minimum and maximum the manifest keeps, to skip files a query cannot match. */
export function prunableColumns(definition: SchemaDefinition): ColumnInfo[] {
  const ordered = new Set<FieldType>(['integer', 'number', 'timestamp', 'date', 'string', 'enum', 'uuid']);
  return [...schemaColumns(definition).values()].filter((column) => ordered.has(column.type));
}
