import { rowJsonSql } from '../ddl/change-triggers.js';
import { mapRecordError } from '../records/database-errors.js';
import type { Queryable } from '../records/record-repository.js';
import { statement } from '../records/statement.js';
import { quoteIdent } from '../schemas/identifiers.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';

/**
 * Makes a record (live or soft-deleted) equal to `state`: every schema field takes the state's
 * value, `deleted_at` is cleared, the version increments. One statement: it names the operation
 * RESTORE and the reason for the change trigger, which writes the history and audit events.
 * Returns the record with `restored_at`, or undefined when the row is not in hot storage.
 */
export async function restoreRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  id: string,
  state: Record<string, unknown>,
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
    const { rows } = await db.query<{ j: string }>(
      statement(text, [id, actor, reason, JSON.stringify(state)]),
    );
    return rows[0]?.j;
  } catch (error) {
    throw mapRecordError(schema, error);
  }
}
