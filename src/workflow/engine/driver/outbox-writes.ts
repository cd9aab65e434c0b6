import type { Tagged } from './effects-writer.js';
import type { RowsSql, ThrownEvent } from './subscription-writes.js';
import type { StatementBuilder } from './write-statement.js';

/**
 * Delivery attempts of a thrown event before its outbox row is parked (logged, kept with its last
 * error). A failed delivery undoes everything it did, so a retry starts afresh.
 */
export const outboxRetries = 5;

/**
 * Adds the outbox rows of the messages and signals engine calls threw, as one CTE of the calls'
 * statement (each row kept to instances that pass the guard): a thrown event is stored exactly when
 * the write that threw it commits, due at once.
 */
export function addOutboxWrites(
  statement: StatementBuilder,
  thrown: readonly Tagged<ThrownEvent>[],
  { where, p }: Pick<RowsSql, 'where' | 'p'>,
): void {
  if (thrown.length === 0) return;
  const events = thrown.map((t) => t.item);
  statement.with(
    'new_outbox',
    `INSERT INTO event_outbox (id, org_id, process_instance_id, element_id, kind, name, correlation_key, variables,
                               due_at, retries, created_at)
     SELECT o.id, o.org_id, o.instance_id, o.element_id, o.kind, o.name, o.correlation_key, o.variables,
            o.now, ${statement.param(outboxRetries)}::int, o.now
     FROM unnest(${p(
       thrown.map((t) => t.orgId),
       'uuid',
     )}, ${p(
       thrown.map((t) => t.instanceId),
       'uuid',
     )},
                 ${p(
                   thrown.map((t) => t.now),
                   'timestamptz',
                 )}, ${p(
                   events.map((t) => t.id),
                   'uuid',
                 )},
                 ${p(
                   events.map((t) => t.elementId),
                   'text',
                 )}, ${p(
                   events.map((t) => t.kind),
                   'text',
                 )},
                 ${p(
                   events.map((t) => (t.kind === 'message' ? t.messageName : t.signalName)),
                   'text',
                 )},
                 ${p(
                   events.map((t) => (t.kind === 'message' ? t.correlationKey : null)),
                   'text',
                 )},
                 ${p(
                   events.map((t) => JSON.stringify(t.variables)),
                   'jsonb',
                 )})
       AS o(org_id, instance_id, now, id, element_id, kind, name, correlation_key, variables)${where('o.instance_id')}`,
  );
}
