import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { HistoryEntry } from '../runtime/index.js';
import { effectColumns, itemColumn, type InsertRows } from './set-wise-write.js';

/*
 * `process_history`: what each instance did, in order (its ids are its order).
 */

/** The engine's insert of its calls' history entries, in the order they happened. */
export const historyInserts: InsertRows<HistoryEntry> = {
  cte: 'new_history',
  table: 'process_history',
  columns: [
    effectColumns.instanceId,
    itemColumn('kind', 'text', (entry) => entry.kind),
    itemColumn('element_id', 'text', (entry) => entry.elementId),
    itemColumn('element_type', 'text', (entry) => entry.elementType),
    itemColumn('token_id', 'text', (entry) => entry.tokenId),
    itemColumn('at', 'timestamptz', (entry) => entry.at),
    itemColumn('data', 'jsonb', (entry) => JSON.stringify(entry.data)),
  ],
  ordered: true,
};

/** A history row as the API shows it. */
export interface HistoryRecord {
  id: number;
  kind: string;
  element_id: string;
  element_type: string;
  token_id: string | null;
  at: string;
  data: Record<string, unknown>;
}

/** The execution history of an instance, oldest first. */
export async function instanceHistory(pool: Pool, id: string): Promise<HistoryRecord[]> {
  const { rows } = await pool.query<Omit<HistoryRecord, 'id' | 'at'> & { id: string; at: Date }>(
    `SELECT id, kind, element_id, element_type, token_id, at, data FROM process_history
     WHERE process_instance_id = $1 ORDER BY id`,
    [id],
  );
  return rows.map((row) => ({ ...row, id: Number(row.id), at: row.at.toISOString() }));
}

/** Deletes up to `limit` history rows of the instances `ids` (housekeeping); returns how many. */
export async function deleteHistoryOf(
  db: Pool | PoolClient,
  ids: readonly string[],
  limit: number,
): Promise<number> {
  const outcome = await db.query({
    name: 'workflow.housekeeping.delete-history',
    text: `DELETE FROM process_history WHERE id IN (
                     SELECT id FROM process_history WHERE process_instance_id = ANY($1::uuid[]) LIMIT $2)`,
    values: [ids, limit],
  });
  return outcome.rowCount ?? 0;
}
