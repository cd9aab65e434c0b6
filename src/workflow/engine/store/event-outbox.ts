import type { Queryable } from '../../../platform/database/queryable.js';
import { claimDueSql } from '../../../platform/jobs/claim-due-sql.js';
import { failedAttemptSql } from '../../../platform/jobs/failed-attempt-sql.js';
import type { Variables } from '../runtime/index.js';
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

/** A thrown message or signal waiting for delivery: a row of `event_outbox`. */
export interface OutboxEvent {
  id: string;
  orgId: string;
  /** The instance that threw it. */
  processInstanceId: string;
  elementId: string;
  kind: 'message' | 'signal';
  name: string;
  correlationKey: string | null;
  variables: Variables;
  dueAt: Date;
  retries: number;
  attempts: number;
}

interface OutboxRow {
  id: string;
  org_id: string;
  process_instance_id: string;
  element_id: string;
  kind: 'message' | 'signal';
  name: string;
  correlation_key: string | null;
  variables: Variables;
  due_at: Date;
  retries: number;
  attempts: number;
}

const columns = `id, org_id, process_instance_id, element_id, kind, name, correlation_key, variables, due_at,
                 retries, attempts`;

const toEvent = (row: OutboxRow): OutboxEvent => ({
  id: row.id,
  orgId: row.org_id,
  processInstanceId: row.process_instance_id,
  elementId: row.element_id,
  kind: row.kind,
  name: row.name,
  correlationKey: row.correlation_key,
  variables: row.variables,
  dueAt: row.due_at,
  retries: row.retries,
  attempts: row.attempts,
});

/** Locks up to `limit` due events with attempts left, oldest first, skipping rows others hold. */
export async function claimDueOutboxEvents(db: Queryable, now: Date, limit: number): Promise<OutboxEvent[]> {
  const { rows } = await db.query<OutboxRow>({
    name: 'workflow.outbox.claim_due',
    text: claimDueSql('event_outbox', columns, 'due_at, created_at'),
    values: [now, limit],
  });
  return rows.map(toEvent);
}

/**
 * Locks the given events (the thrower's own, right after its commit) unless they are gone; a row
 * whose delivery failed waits for its backoff instead. A row another executor holds (a polling
 * loop that claimed it first) is waited for, not skipped: its delivery deletes it, so the thrower's
 * call still returns only once its events were delivered, whoever delivered them. Only this
 * claim waits (the loops skip locked rows), so two claims never wait on each other.
 */
export async function claimOutboxEvents(db: Queryable, ids: readonly string[]): Promise<OutboxEvent[]> {
  const { rows } = await db.query<OutboxRow>({
    name: 'workflow.outbox.claim_ids',
    text: `SELECT ${columns} FROM event_outbox
           WHERE id = ANY($1::uuid[]) AND attempts = 0 AND retries > 0
           ORDER BY created_at, id
           FOR UPDATE`,
    values: [ids],
  });
  return rows.map(toEvent);
}

/** Deletes a delivered event, in its delivery's transaction. */
export async function deleteOutboxEvent(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'workflow.outbox.delete',
    text: 'DELETE FROM event_outbox WHERE id = $1',
    values: [id],
  });
}

/** Backoff of a failed delivery: `min(max, base × 2^(attempts so far))`. */
export interface OutboxBackoff {
  baseMs: number;
  maxMs: number;
}

/** One second, doubling, at most ten minutes. */
export const defaultOutboxBackoff: OutboxBackoff = { baseMs: 1_000, maxMs: 600_000 };

/**
 * Records a failed delivery: one retry fewer, `last_error`, and due again after the backoff,
 * computed in SQL; with `keepOne` the count stops at 1. Returns the retries left.
 */
export async function recordOutboxFailure(
  db: Queryable,
  id: string,
  message: string,
  now: Date,
  backoff: OutboxBackoff,
  keepOne: boolean,
): Promise<number> {
  const { rows } = await db.query<{ retries: number }>({
    name: 'workflow.outbox.fail',
    text: failedAttemptSql('event_outbox', { baseMs: '$5', maxMs: '$6' }),
    values: [id, message.slice(0, 4000), now, keepOne ? 1 : 0, backoff.baseMs, backoff.maxMs],
  });
  return rows[0]?.retries ?? 0;
}
