import { parseExactJson } from '../../platform/json/exact-json.js';
import type { AuditRow } from './audit-repository.js';

/**
 * An audit event as the API shows it: the spec's fields plus the record `version` after the change
 * and the chain links (with the history row the event covers, when it has one). Every audit output
 * goes through here, so a field read filter can be applied in one place. Values keep every digit of
 * their numbers: serialize with `stringifyExactJson`.
 */
export function presentAuditEvent(row: AuditRow): Record<string, unknown> {
  const event: Record<string, unknown> = {
    event_id: Number(row.event_id),
    timestamp: row.timestamp,
    actor: row.actor,
    schema: row.schema_path,
    entity_id: row.entity_id,
    operation: row.operation,
    version: row.version,
    old_value: row.old_value === null ? null : parseExactJson(row.old_value),
    new_value: row.new_value === null ? null : parseExactJson(row.new_value),
    previous_hash: row.previous_hash,
    hash: row.hash,
  };
  // Part of the hashed content only when present (docs/records/audit.md), so shown only then.
  if (row.history_hash !== null) {
    event.history_event_id = Number(row.history_event_id);
    event.history_hash = row.history_hash;
  }
  // An erased event's values are gone (erasure); it says when.
  if (row.erased_at !== null) event.erased_at = row.erased_at;
  return event;
}
