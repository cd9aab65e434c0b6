import type pg from 'pg';
import { quoteIdent } from '../schemas/identifiers.js';
import { columnJsonSql, jsonObjectSql, type CompiledSchema } from '../schemas/compiled-schema.js';
import { mapRecordError } from './database-errors.js';
import type { ExactValues } from './exact-values.js';
import { statement, SqlParams } from './statement.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** A pool or a connection inside a transaction. */

async function run(db: Queryable, schema: CompiledSchema, config: pg.QueryConfig) {
  try {
    return await db.query<{ j: string }>(config);
  } catch (error) {
    throw mapRecordError(schema, error);
  }
}

function writeValue(
  schema: CompiledSchema,
  name: string,
  value: unknown,
  params: SqlParams,
  exact: ExactValues | undefined,
): string {
  const column = schema.columns.get(name);
  if (!column) throw new Error(`unknown column ${name}`);
  const exactText = exact?.get(name);
  if (exactText !== undefined) return params.add(exactText, column.type === 'json' ? 'jsonb' : column.pgType);
  if (column.type === 'json') return params.add(value === null ? null : JSON.stringify(value), 'jsonb');
  return params.add(value, column.pgType);
}

/**
 * Inserts a record (fields already validated); returns its JSON. `exact` holds the text of fields
 * whose JSON numbers a double cannot hold (see exact-values.ts).
 */
export async function insertRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  body: Record<string, unknown>,
  exact?: ExactValues,
): Promise<string> {
  const params = new SqlParams();
  const columns = ['created_by', 'updated_by'];
  const actorParam = params.add(actor, 'text');
  const values = [actorParam, actorParam];
  for (const [name, value] of Object.entries(body)) {
    columns.push(quoteIdent(name));
    values.push(writeValue(schema, name, value, params, exact));
  }
  const text = `INSERT INTO ${schema.table} (${columns.join(', ')}) VALUES (${values.join(', ')}) RETURNING ${schema.recordJson}::text AS j`;
  const { rows } = await run(db, schema, statement(text, params.values));
  return rows[0]?.j ?? '{}';
}

/** A live record's JSON, or undefined. */
export async function getRecord(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
): Promise<string | undefined> {
  const { rows } = await run(db, schema, statement(schema.readSql, [id]));
  return rows[0]?.j;
}

/** Outcome of a versioned update. */
export type PatchOutcome = { updated: string } | { missing: true } | { currentVersion: number };

/**
 * Updates a live record if it is still at `version`, in one statement (the version check is part of
 * the UPDATE, so two racing writers cannot both win). Returns `{id, changed fields, version,
 * updated_at, updated_by}`, or why nothing was updated.
 */
export async function patchRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  id: string,
  version: number,
  changes: Record<string, unknown>,
  exact?: ExactValues,
): Promise<PatchOutcome> {
  const params = new SqlParams();
  const idParam = params.add(id, 'uuid');
  const versionParam = params.add(version, 'integer');
  const assignments = [
    `updated_by = ${params.add(actor, 'text')}`,
    'updated_at = now()',
    'version = version + 1',
  ];
  const names = Object.keys(changes);
  for (const name of names)
    assignments.push(`${quoteIdent(name)} = ${writeValue(schema, name, changes[name], params, exact)}`);
  const output = jsonObjectSql(
    ['id', ...names, 'version', 'updated_at', 'updated_by'].map((name) => [
      name,
      columnJsonSql(schema.columns.get(name)!),
    ]),
  );
  const live = `deleted_at IS NULL${schema.rowFilter !== undefined ? ` AND ${schema.rowFilter}` : ''}`;
  const text = `UPDATE ${schema.table} SET ${assignments.join(', ')} WHERE id = ${idParam} AND version = ${versionParam} AND ${live} RETURNING ${output}::text AS j`;
  const { rows } = await run(db, schema, statement(text, params.values));
  if (rows[0]) return { updated: rows[0].j };
  const current = await db.query<{ version: number }>(
    statement(`SELECT version FROM ${schema.table} WHERE id = $1 AND ${live}`, [id]),
  );
  return current.rows[0] ? { currentVersion: current.rows[0].version } : { missing: true };
}

/** Soft-deletes a live record; false when there is none. */
export async function softDeleteRecord(
  db: Queryable,
  schema: CompiledSchema,
  actor: string,
  id: string,
): Promise<boolean> {
  const filter = schema.rowFilter !== undefined ? ` AND ${schema.rowFilter}` : '';
  const text = `UPDATE ${schema.table} SET deleted_at = now(), updated_at = now(), updated_by = $2, version = version + 1 WHERE id = $1 AND deleted_at IS NULL${filter} RETURNING id::text AS j`;
  const { rows } = await run(db, schema, statement(text, [id, actor]));
  return rows.length > 0;
}
