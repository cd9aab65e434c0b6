import { columnOf, instanceIds, nows, orgIds, type Tagged } from './tagged-rows.js';
import type { ThrownEvent } from './subscription-writes.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';

/**
 * Delivery attempts of a thrown event before its outbox row is parked (logged, kept with its last
 * error). A failed delivery undoes everything it did, so a retry starts afresh.
 */
export const outboxRetries = 5;

/**
 * Adds the outbox rows of the messages and signals engine calls threw, as one CTE of the calls'
 * statement (each row kept to instances that pass the guard, through `where` of the instance id
 * column): a thrown event is stored exactly when the write that threw it commits, due at once.
 */
export function addOutboxWrites(
  statement: StatementBuilder,
  thrown: readonly Tagged<ThrownEvent>[],
  where: (instanceIdSql: string) => string,
): void {
  if (thrown.length === 0) return;
  const rows = unnestParams(statement, [
    orgIds(thrown),
    instanceIds(thrown),
    nows(thrown),
    columnOf(thrown, (t) => t.id, 'uuid'),
    columnOf(thrown, (t) => t.elementId, 'text'),
    columnOf(thrown, (t) => t.kind, 'text'),
    columnOf(thrown, (t) => (t.kind === 'message' ? t.messageName : t.signalName), 'text'),
    columnOf(thrown, (t) => (t.kind === 'message' ? t.correlationKey : null), 'text'),
    columnOf(thrown, (t) => JSON.stringify(t.variables), 'jsonb'),
  ]);
  statement.with(
    'new_outbox',
    `INSERT INTO event_outbox (id, org_id, process_instance_id, element_id, kind, name, correlation_key, variables,
                               due_at, retries, created_at)
     SELECT o.id, o.org_id, o.instance_id, o.element_id, o.kind, o.name, o.correlation_key, o.variables,
            o.now, ${statement.param(outboxRetries)}::int, o.now
     FROM ${rows} AS o(org_id, instance_id, now, id, element_id, kind, name, correlation_key, variables)${where('o.instance_id')}`,
  );
}
