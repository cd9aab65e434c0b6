import { createHash } from 'node:crypto';
import { pgSchemaName, pgTableName, quoteIdent, quoteLiteral } from '../schemas/identifiers.js';
import type { FieldDefinition, SchemaDefinition } from '../types.js';
import { columnTypes } from './column-types.js';

/**
 * All DDL of a schema version is generated here, so the later history-table and RLS work has one
 * place to extend. Identifiers come from validated names and are always quoted.
 */

/** The quoted `schema.table` of a schema version. */
export function qualifiedTable(definition: SchemaDefinition): string {
  return `${quoteIdent(pgSchemaName(definition.org))}.${quoteIdent(tableName(definition))}`;
}

/** The bare table name of a schema version. */
export function tableName(definition: SchemaDefinition): string {
  return pgTableName(definition.app, definition.domain, definition.object, definition.version);
}

/** An index of a schema version's table. */
export interface IndexSpec {
  name: string;
  /** The field it serves (unique violations name it). */
  field: string;
  sql: string;
}

function indexName(table: string, kind: string, field: string): string {
  return `ix_${createHash('sha256').update(`${table}:${kind}:${field}`).digest('hex').slice(0, 24)}`;
}

function literalFor(field: FieldDefinition, value: unknown): string {
  if (field.type === 'json') return `${quoteLiteral(JSON.stringify(value))}::jsonb`;
  if (typeof value === 'string') return `${quoteLiteral(value)}::${columnTypes[field.type]}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`Unsupported default for ${field.name}`);
}

// JavaScript and Postgres regular expressions agree on a common core; patterns outside it are
// checked by the API only.
const portablePattern = /^(?:[^\\(]|\\[dswDSW.\\/\-^$*+?()[\]{}|]|\((?!\?))*$/;

/** CHECK expressions Postgres can enforce for a field. */
export function checksFor(field: FieldDefinition): string[] {
  const column = quoteIdent(field.name);
  const checks: string[] = [];
  if (field.enum) checks.push(`${column} IN (${field.enum.map(quoteLiteral).join(', ')})`);
  if (field.min !== undefined) checks.push(`${column} >= ${field.min}`);
  if (field.max !== undefined) checks.push(`${column} <= ${field.max}`);
  if (field.minLength !== undefined) checks.push(`char_length(${column}) >= ${field.minLength}`);
  if (field.maxLength !== undefined) checks.push(`char_length(${column}) <= ${field.maxLength}`);
  if (field.pattern !== undefined && portablePattern.test(field.pattern))
    checks.push(`${column} ~ ${quoteLiteral(field.pattern)}`);
  return checks;
}

/** The column definition of a field (type, NOT NULL, default, checks). */
export function columnDefinition(field: FieldDefinition): string {
  const parts = [quoteIdent(field.name), columnTypes[field.type]];
  if (field.required) parts.push('NOT NULL');
  if (field.default !== undefined) parts.push(`DEFAULT ${literalFor(field, field.default)}`);
  for (const check of checksFor(field)) parts.push(`CHECK (${check})`);
  return parts.join(' ');
}

/**
 * Indexes of a schema version: unique fields (among live records), filterable and sortable fields
 * (btree, GIN for json), the default sort, and the indexes `spec.indexes` declares. All partial on
 * live rows, which is all the API reads.
 */
export function indexesFor(definition: SchemaDefinition): IndexSpec[] {
  const table = tableName(definition);
  const qualified = qualifiedTable(definition);
  const live = 'WHERE deleted_at IS NULL';
  const indexes: IndexSpec[] = [
    {
      name: indexName(table, 'sort', 'created_at'),
      field: 'created_at',
      sql: `(created_at, id) ${live}`,
    },
  ];
  for (const field of definition.fields) {
    const column = quoteIdent(field.name);
    if (field.unique)
      indexes.push({
        name: indexName(table, 'unique', field.name),
        field: field.name,
        sql: `UNIQUE:(${column}) ${live}`,
      });
    if (field.type === 'json') {
      if (field.filterable)
        indexes.push({
          name: indexName(table, 'gin', field.name),
          field: field.name,
          sql: `GIN:(${column})`,
        });
    } else if ((field.filterable || field.sortable) && !field.unique) {
      indexes.push({
        name: indexName(table, 'btree', field.name),
        field: field.name,
        sql: `(${column}, id) ${live}`,
      });
    }
  }
  for (const declared of definition.indexes ?? []) {
    const key = declared.fields.join(',');
    indexes.push({
      name: indexName(table, 'declared', key),
      field: key,
      sql: `(${declared.fields.map(quoteIdent).join(', ')}, id) ${live}`,
    });
  }
  return indexes.map((index) => ({ ...index, sql: renderIndex(index, qualified, false) }));
}

function renderIndex(index: IndexSpec, qualified: string, concurrently: boolean): string {
  const how = concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  if (index.sql.startsWith('UNIQUE:'))
    return `CREATE UNIQUE INDEX ${how} ${quoteIdent(index.name)} ON ${qualified} ${index.sql.slice(7)}`;
  if (index.sql.startsWith('GIN:'))
    return `CREATE INDEX ${how} ${quoteIdent(index.name)} ON ${qualified} USING gin ${index.sql.slice(4)}`;
  return `CREATE INDEX ${how} ${quoteIdent(index.name)} ON ${qualified} ${index.sql}`;
}

/** The same index built without blocking writes (for tables that already hold data). */
export function concurrently(sql: string): string {
  return sql.replace(' IF NOT EXISTS ', ' CONCURRENTLY IF NOT EXISTS ');
}

/** Statements that create a schema version's Postgres schema, table and indexes. */
export function createStatements(definition: SchemaDefinition): string[] {
  const columns = [
    'id uuid PRIMARY KEY DEFAULT gen_random_uuid()',
    'created_at timestamptz NOT NULL DEFAULT now()',
    'created_by text NOT NULL',
    'updated_at timestamptz NOT NULL DEFAULT now()',
    'updated_by text NOT NULL',
    'version integer NOT NULL DEFAULT 1',
    'deleted_at timestamptz',
    ...definition.fields.map(columnDefinition),
  ];
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(pgSchemaName(definition.org))}`,
    `CREATE TABLE IF NOT EXISTS ${qualifiedTable(definition)} (\n  ${columns.join(',\n  ')}\n)`,
    ...indexesFor(definition).map((index) => index.sql),
  ];
}
