import { rowJsonSql } from '../ddl/change-triggers.js';
import { mapRecordError } from '../records/database-errors.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { statement } from '../records/statement.js';
import { quoteIdent } from '../schemas/identifiers.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';

/**
 * Makes a record (live or soft-deleted) equal to `stateJson` (a history state as PostgreSQL's JSON
 * text, so numbers keep every digit): every schema field takes the state's
 * value, `deleted_at` is cleared, the version increments. One statement: it names the operation
 * RESTORE and the reason for the change trigger, which writes the history and audit events.
 * Returns the record with `restored_at`, or undefined when the row is not in hot storage.
 */
export async function restoreRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  id: string,
  stateJson: string,
  reason: string,
): Promise<string | undefined> {
  const assignments = schema.definition.fields.map(
    (field) => `${quoteIdent(field.name)} = src.${quoteIdent(field.name)}`,
  );
  const output = `(${rowJsonSql(schema.definition, 't')} || jsonb_build_object('restored_at', to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')))::text`;
  const text = `WITH context AS (SELECT set_config('weft.operation', 'RESTORE', true) AS operation, set_config('weft.reason', $3, true) AS reason),
src AS (SELECT * FROM jsonb_populate_record(NULL::${schema.table}, $4::jsonb))
UPDATE ${schema.table} AS t SET ${[...assignments, 'deleted_at = NULL', 'updated_at = now()', 'updated_by = $2', 'version = t.version + 1'].join(', ')}
FROM context, src WHERE t.id = $1 RETURNING ${output} AS j`;
  try {
    const { rows } = await db.query<{ j: string }>(statement(text, [id, actor, reason, stateJson]));
    return rows[0]?.j;
  } catch (error) {
    throw mapRecordError(schema, error);
  }
}

/** A restore as a change: the stored record, and the fields the restore gives another value. */
export interface RestoreChange {
  /** The record as stored now (live or soft-deleted), unmasked. */
  current: Record<string, unknown>;
  /** Each schema field whose value the restore changes, with the value it restores. */
  changes: Record<string, unknown>;
}

/**
 * Reads and locks (`FOR UPDATE`) the record through `rowFilter` (the caller's row filter, SQL over
 * the table's columns) and compares it with `stateJson` as `restoreRecord` would write it: both sides
 * are rendered as record JSON by the same SQL from a row of the table's type, so equal values
 * compare equal whatever their type. Undefined when the row is not in hot storage or fails the
 * filter.
 */
export async function readRestoreChange(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  stateJson: string,
  rowFilter: string | undefined,
): Promise<RestoreChange | undefined> {
  const filter = rowFilter !== undefined ? ` AND ${rowFilter}` : '';
  // Which fields differ is decided on the jsonb values, exactly: numbers a double cannot hold would
  // compare equal once parsed.
  const text = `WITH cur AS (SELECT * FROM ${schema.table} WHERE id = $1${filter} FOR UPDATE),
pair AS (SELECT ${rowJsonSql(schema.definition, 'cur')} AS cur, ${rowJsonSql(schema.definition, 'src')} AS src
  FROM cur, jsonb_populate_record(NULL::${schema.table}, $2::jsonb) AS src)
SELECT cur::text AS cur, src::text AS src,
  ARRAY(SELECT name FROM unnest($3::text[]) AS name WHERE cur -> name IS DISTINCT FROM src -> name) AS changed
FROM pair`;
  const fields = schema.definition.fields.map((field) => field.name);
  let row: { cur: string; src: string; changed: string[] } | undefined;
  try {
    row = (
      await db.query<{ cur: string; src: string; changed: string[] }>(
        statement(text, [id, stateJson, fields]),
      )
    ).rows[0];
  } catch (error) {
    throw mapRecordError(schema, error);
  }
  if (!row) return undefined;
  const current = JSON.parse(row.cur) as Record<string, unknown>;
  const restored = JSON.parse(row.src) as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  for (const name of row.changed) changes[name] = restored[name] ?? null;
  return { current, changes };
}
