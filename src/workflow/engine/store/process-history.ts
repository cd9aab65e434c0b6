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
