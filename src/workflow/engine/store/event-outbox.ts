import { effectColumns, itemColumn, type InsertRows } from './set-wise-write.js';

/*
 * `event_outbox`: the messages and signals instances threw, stored by the write that threw them and
 * delivered after its commit (retried, then parked with their last error).
 */

/**
 * Delivery attempts of a thrown event before its outbox row is parked (logged, kept with its last
 * error). A failed delivery undoes everything it did, so a retry starts afresh.
 */
export const outboxRetries = 5;

/**
 * A message or signal an instance threw (an end or intermediate throw event, a send task): one row
 * of `event_outbox`, whose `id` the engine chooses so the thrower can deliver it after commit.
 */
export type ThrownEvent = { id: string; elementId: string } & (
  | {
      kind: 'message';
      messageName: string;
      correlationKey: string | null;
      variables: Record<string, unknown>;
    }
  | { kind: 'signal'; signalName: string; variables: Record<string, unknown> }
);

/**
 * The engine's insert of the events its calls threw: a thrown event is stored exactly when the
 * write that threw it commits, due at once.
 */
export const outboxInserts: InsertRows<ThrownEvent> = {
  cte: 'new_outbox',
  table: 'event_outbox',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    effectColumns.now,
    itemColumn('id', 'uuid', (event) => event.id),
    itemColumn('element_id', 'text', (event) => event.elementId),
    itemColumn('kind', 'text', (event) => event.kind),
    itemColumn('name', 'text', (event) => (event.kind === 'message' ? event.messageName : event.signalName)),
    itemColumn('correlation_key', 'text', (event) =>
      event.kind === 'message' ? event.correlationKey : null,
    ),
    itemColumn('variables', 'jsonb', (event) => JSON.stringify(event.variables)),
    { name: 'retries', type: 'int', value: () => outboxRetries },
  ],
  computed: { due_at: 'r.now', created_at: 'r.now' },
};
