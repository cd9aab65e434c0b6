import { historyTable } from '../ddl/change-triggers.js';
import type { Queryable } from '../../platform/database/queryable.js';
import { statement } from '../records/statement.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { historyColumnsSql, type HistoryRow } from './present.js';

/**
 * Reads of a record's history. History rows are ordered by `event_id` (monotonic per record); an
 * instant selects the last event whose timestamp is at or before it.
 */

/** A page of a record's events, oldest first, with the record's event count. */
export async function listHistory(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  limit: number,
  offset: number,
): Promise<{ rows: HistoryRow[]; total: number }> {
  const table = historyTable(schema.definition);
  const { rows } = await db.query<HistoryRow & { total: string }>(
    statement(
      `SELECT ${historyColumnsSql}, count(*) OVER () AS total FROM ${table} h WHERE h.record_id = $1 ORDER BY h.event_id LIMIT $2 OFFSET $3`,
      [id, limit, offset],
    ),
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && offset > 0) {
    const count = await db.query<{ n: string }>(
      statement(`SELECT count(*) AS n FROM ${table} WHERE record_id = $1`, [id]),
    );
    total = Number(count.rows[0]?.n ?? 0);
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

/** Events after `afterEventId`, oldest first, at most `limit` (the replay stream's pages). */
export async function historyAfter(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  afterEventId: string,
  limit: number,
): Promise<HistoryRow[]> {
  const { rows } = await db.query<HistoryRow>(
    statement(
      `SELECT ${historyColumnsSql} FROM ${historyTable(schema.definition)} h WHERE h.record_id = $1 AND h.event_id > $2::bigint ORDER BY h.event_id LIMIT $3`,
      [id, afterEventId, limit],
    ),
  );
  return rows;
}

/**
 * The record's full state at `at` as PostgreSQL's JSON text (undefined before it existed), with
 * every digit of its numbers: what a restore writes back and, parsed by `parseExactJson`, what the
 * time machine shows.
 */
export async function stateJsonAt(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
  at: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ state: string }>(
    statement(
      `SELECT state::text AS state FROM ${historyTable(schema.definition)} WHERE record_id = $1 AND "timestamp" <= $2::timestamptz ORDER BY event_id DESC LIMIT 1`,
      [id, at],
    ),
  );
  return rows[0]?.state;
}

/** Whether the record has any history. */
export async function hasHistory(db: Queryable, schema: CompiledSchema, id: string): Promise<boolean> {
  const { rows } = await db.query(
    statement(`SELECT 1 FROM ${historyTable(schema.definition)} WHERE record_id = $1 LIMIT 1`, [id]),
  );
  return rows.length > 0;
}

/** A history row's id with its hash recomputed from its stored content (records.history_row_hash). */
export interface HistoryRowHash {
  event_id: string;
  hash: string;
}

/** Every hot history row of a record, oldest first, with its recomputed hash (audit verify). */
export async function historyRowHashes(
  db: Queryable,
  schema: CompiledSchema,
  id: string,
): Promise<HistoryRowHash[]> {
  const { rows } = await db.query<HistoryRowHash>(
    statement(
      `SELECT event_id::text, records.history_row_hash(event_id, record_id, "timestamp", actor, operation, old_value, new_value, state, reason) AS hash
       FROM ${historyTable(schema.definition)} WHERE record_id = $1 ORDER BY event_id`,
      [id],
    ),
  );
  return rows;
}
