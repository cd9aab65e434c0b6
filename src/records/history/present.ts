import { parseExactJson } from '../../platform/json/exact-json.js';

/** A history row as read from a history table, its values as PostgreSQL's JSON text. */
export interface HistoryRow {
  event_id: string;
  timestamp: string;
  actor: string;
  operation: string;
  old_value: string | null;
  new_value: string | null;
  reason: string | null;
}

/** SQL selecting a HistoryRow from a history table aliased `h`. */
export const historyColumnsSql = `h.event_id::text AS event_id,
  to_char(h."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "timestamp",
  h.actor, h.operation, h.old_value::text AS old_value, h.new_value::text AS new_value, h.reason`;

/**
 * A history event as the API shows it. Every history output (list, replay) goes through here, so
 * a field read filter can be applied in one place. Values keep every digit of their numbers
 * (`parseExactJson`): serialize the event with `stringifyExactJson`.
 */
export function presentHistoryEvent(row: HistoryRow): Record<string, unknown> {
  const event: Record<string, unknown> = {
    event_id: Number(row.event_id),
    timestamp: row.timestamp,
    actor: row.actor,
    operation: row.operation,
    old_value: row.old_value === null ? null : parseExactJson(row.old_value),
    new_value: row.new_value === null ? null : parseExactJson(row.new_value),
  };
  if (row.reason !== null) event.reason = row.reason;
  return event;
}

/** A record's state at an instant as the API shows it (the field-filter hook for `at` reads). */
export function presentRecordState(state: Record<string, unknown>): Record<string, unknown> {
  return state;
}
