import { notSuspended } from './not-suspended.js';
import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { Wait } from '../runtime/index.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type WaitRows,
  type MovedRows,
} from './set-wise-write.js';

/*
 * `event_subscriptions`: the open message and signal waits, found by name (and correlation key)
 * when a message or signal arrives. A subscription exists exactly while its wait is open.
 */

/** A message or signal wait: what becomes a row of `event_subscriptions`. */
export type SubscriptionWait = Extract<Wait, { kind: 'message' | 'signal' }>;

/** True for the waits that are subscriptions. */
export function isSubscriptionWait(wait: Wait): wait is SubscriptionWait {
  return wait.kind === 'message' || wait.kind === 'signal';
}

/** The engine's insert of the subscriptions its calls opened. */
export const subscriptionInserts: InsertRows<SubscriptionWait> = {
  cte: 'new_subscriptions',
  table: 'event_subscriptions',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    { name: 'process_key', type: 'text', value: (row) => row.processKey },
    effectColumns.now,
    itemColumn('wait_id', 'uuid', (wait) => wait.waitId),
    itemColumn('element_id', 'text', (wait) => wait.elementId),
    itemColumn('kind', 'text', (wait) => wait.kind),
    itemColumn('name', 'text', (wait) => (wait.kind === 'message' ? wait.messageName : wait.signalName)),
    itemColumn('correlation_key', 'text', (wait) => (wait.kind === 'message' ? wait.correlationKey : null)),
  ],
  computed: { created_at: 'r.now' },
};

/** The subscriptions kept by a migration, pointed at their new element. */
export const subscriptionMoves: MovedRows = {
  cte: 'moved_subscriptions',
  table: 'event_subscriptions',
  idColumn: 'wait_id',
  elementColumn: 'element_id',
};

/** The engine's delete of the subscriptions its calls closed. */
export const subscriptionWaits: WaitRows = {
  cte: 'closed_subscriptions',
  table: 'event_subscriptions',
  waitColumn: 'wait_id',
};

type Db = Pool | PoolClient;

/** An open message or signal wait of an instance (a row of `event_subscriptions`). */
export interface Subscription {
  waitId: string;
  instanceId: string;
  processKey: string;
}

interface SubscriptionRow {
  wait_id: string;
  process_instance_id: string;
  process_key: string;
}

const toSubscription = (row: SubscriptionRow): Subscription => ({
  waitId: row.wait_id,
  instanceId: row.process_instance_id,
  processKey: row.process_key,
});

/**
 * Open message waits a message may complete, oldest first: same org and name; a wait whose model
 * gives no correlation key takes any message, a keyed one only a message with its key. Waits of
 * `skipKeys` (process keys already served) and `skipWaits` (already tried) are left out.
 */
export async function findMessageSubscriptions(
  db: Db,
  input: {
    orgId: string;
    messageName: string;
    correlationKey: string | null;
    skipKeys: string[];
    skipWaits: string[];
    limit: number;
  },
): Promise<Subscription[]> {
  const keyed = input.correlationKey !== null;
  const { rows } = await db.query<SubscriptionRow>({
    name: keyed ? 'workflow.events.match_message_keyed' : 'workflow.events.match_message',
    text: `SELECT wait_id, process_instance_id, process_key FROM event_subscriptions
           WHERE org_id = $1 AND kind = 'message' AND name = $2
             AND ${keyed ? '(correlation_key = $6 OR correlation_key IS NULL)' : 'correlation_key IS NULL'}
             AND process_key <> ALL($3::text[]) AND wait_id <> ALL($4::uuid[])
             AND ${notSuspended('process_instance_id')}
           ORDER BY created_at, wait_id
           LIMIT $5`,
    values: [
      input.orgId,
      input.messageName,
      input.skipKeys,
      input.skipWaits,
      input.limit,
      ...(keyed ? [input.correlationKey] : []),
    ],
  });
  return rows.map(toSubscription);
}

/** Every open wait for a signal in the org, oldest first. */
export async function findSignalSubscriptions(
  db: Db,
  orgId: string,
  signalName: string,
): Promise<Subscription[]> {
  const { rows } = await db.query<SubscriptionRow>({
    name: 'workflow.events.match_signal',
    text: `SELECT wait_id, process_instance_id, process_key FROM event_subscriptions
           WHERE org_id = $1 AND kind = 'signal' AND name = $2
             AND ${notSuspended('process_instance_id')}
           ORDER BY created_at, wait_id`,
    values: [orgId, signalName],
  });
  return rows.map(toSubscription);
}
