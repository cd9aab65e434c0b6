import { columnTypes } from '../ddl/column-types.js';
import { indexesFor, qualifiedTable } from '../ddl/table-ddl.js';
import { quoteIdent, quoteLiteral } from './identifiers.js';
import { bodySchemas } from './field-json-schema.js';
import { compileBodyValidator, type BodyValidator } from './body-validator.js';
import { systemFields, type FieldType, type SchemaDefinition } from '../types.js';

/** A column the API can read, filter or sort on. */
export interface ColumnInfo {
  name: string;
  type: FieldType;
  /** Postgres type used to cast parameters compared with it. */
  pgType: string;
  filterable: boolean;
  sortable: boolean;
  notNull: boolean;
}

/** A schema version prepared for serving: validators, SQL fragments and column metadata. */
export interface CompiledSchema {
  definition: SchemaDefinition;
  path: string;
  /** Quoted `schema.table`. */
  table: string;
  /** Every readable column (system fields, then the schema's), by name. */
  columns: ReadonlyMap<string, ColumnInfo>;
  /** SQL producing a record's JSON (text) from the table's columns. */
  recordJson: string;
  /** The read-by-id statement (`$1` the id), built once per schema version. */
  readSql: string;
  validateCreate: BodyValidator;
  validatePatch: BodyValidator;
  /** Unique index name → the field it guards. */
  uniqueIndexes: ReadonlyMap<string, string>;
  /**
   * The caller's row filter (access layer 4), ANDed into every statement that reads or changes
   * rows; set only on the per-caller views made by `src/records/access/`.
   */
  rowFilter?: string;
}

const systemColumnTypes: Record<(typeof systemFields)[number], FieldType> = {
  id: 'uuid',
  created_at: 'timestamp',
  created_by: 'string',
  updated_at: 'timestamp',
  updated_by: 'string',
  version: 'integer',
  deleted_at: 'timestamp',
};
// System fields with an index behind them.
const queryableSystemFields = new Set(['id', 'created_at']);

/**
 * A JSON object built by Postgres from `[key, sql expression]` pairs. json_build_object takes at
 * most 100 arguments, so wide records are built in chunks and merged as jsonb.
 */
export function jsonObjectSql(pairs: [string, string][]): string {
  const args = (chunk: [string, string][]) =>
    chunk.map(([key, sql]) => `${quoteLiteral(key)}, ${sql}`).join(', ');
  if (pairs.length <= 50) return `json_build_object(${args(pairs)})`;
  const chunks: string[] = [];
  for (let start = 0; start < pairs.length; start += 50)
    chunks.push(`jsonb_build_object(${args(pairs.slice(start, start + 50))})`);
  return `(${chunks.join(' || ')})::json`;
}

/** A column's value as it appears in record JSON (timestamps always in UTC with a `Z`). */
export function columnJsonSql(column: ColumnInfo): string {
  const quoted = quoteIdent(column.name);
  return column.type === 'timestamp'
    ? `to_char(${quoted} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : quoted;
}

/** The readable columns of a definition: system fields, then the schema's fields. */
export function schemaColumns(definition: SchemaDefinition): Map<string, ColumnInfo> {
  const columns = new Map<string, ColumnInfo>();
  for (const name of systemFields) {
    const type = systemColumnTypes[name];
    const queryable = queryableSystemFields.has(name);
    columns.set(name, {
      name,
      type,
      pgType: columnTypes[type],
      filterable: queryable,
      sortable: queryable,
      notNull: name !== 'deleted_at',
    });
  }
  for (const field of definition.fields)
    columns.set(field.name, {
      name: field.name,
      type: field.type,
      pgType: columnTypes[field.type],
      filterable: field.filterable,
      sortable: field.sortable,
      notNull: field.required,
    });
  return columns;
}

/** Compiles a validated definition. */
export function compileSchema(definition: SchemaDefinition): CompiledSchema {
  const columns = schemaColumns(definition);
  const bodies = bodySchemas(definition.fields);
  const uniqueIndexes = new Map<string, string>();
  for (const index of indexesFor(definition))
    if (index.sql.includes('UNIQUE INDEX')) uniqueIndexes.set(index.name, index.field);
  const table = qualifiedTable(definition);
  const recordJson = jsonObjectSql(
    [...columns.values()].map((column) => [column.name, columnJsonSql(column)]),
  );
  return {
    definition,
    path: definition.path,
    table,
    columns,
    recordJson,
    readSql: `SELECT ${recordJson}::text AS j FROM ${table} WHERE id = $1 AND deleted_at IS NULL`,
    validateCreate: compileBodyValidator(bodies.create),
    validatePatch: compileBodyValidator(bodies.patch),
    uniqueIndexes,
  };
}
