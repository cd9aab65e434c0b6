import type { ThrownEvent } from './subscription-writes.js';
import type { WriteStatement } from './write-statement.js';

/**
 * Delivery attempts of a thrown event before its outbox row is parked (logged, kept with its last
 * error). A failed delivery undoes everything it did, so a retry starts afresh.
 */
export const outboxRetries = 5;

/**
 * Adds the outbox rows of the messages and signals an engine call threw, as one CTE of the call's
 * statement (`where` carries the instance guard): a thrown event is stored exactly when the write
 * that threw it commits, due at once.
 */
export function addOutboxWrites(
  statement: WriteStatement,
  target: { instance: () => string; org: () => string; now: string },
  thrown: readonly ThrownEvent[],
  where: string,
): void {
  const now = statement.param(target.now);
  statement.with(
    'new_outbox',
    `INSERT INTO event_outbox (id, org_id, process_instance_id, element_id, kind, name, correlation_key, variables,
                               due_at, retries, created_at)
     SELECT o.id, ${target.org()}, ${target.instance()}, o.element_id, o.kind, o.name, o.correlation_key, o.variables,
            ${now}::timestamptz, ${statement.param(outboxRetries)}::int, ${now}::timestamptz
     FROM unnest(${statement.param(thrown.map((t) => t.id))}::uuid[], ${statement.param(thrown.map((t) => t.elementId))}::text[],
                 ${statement.param(thrown.map((t) => t.kind))}::text[],
                 ${statement.param(thrown.map((t) => (t.kind === 'message' ? t.messageName : t.signalName)))}::text[],
                 ${statement.param(thrown.map((t) => (t.kind === 'message' ? t.correlationKey : null)))}::text[],
                 ${statement.param(thrown.map((t) => JSON.stringify(t.variables)))}::jsonb[])
       AS o(id, element_id, kind, name, correlation_key, variables)${where}`,
  );
}
