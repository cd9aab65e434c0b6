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

/** An open message wait that a Camunda correlation selected, with its instance. */
export interface CorrelatableWait extends Subscription {
  definitionId: string;
  businessKey: string | null;
}

/**
 * Open message waits of a Camunda 7 correlation (POST /engine-rest/message), oldest first: same
 * org and name, of an instance with the business key, the id and root variables equal to
 * `variables` (each given name), and not suspended. Waits whose model gives a weft correlation key
 * are selected only when the instance is named: a Camunda correlation carries no such key.
 */
export async function findCorrelatableMessageWaits(
  db: Db,
  input: {
    orgId: string;
    messageName: string;
    businessKey: string | null;
    processInstanceId: string | null;
    variables: Record<string, unknown>;
    limit: number;
  },
): Promise<CorrelatableWait[]> {
  const { rows } = await db.query<SubscriptionRow & { definition_id: string; business_key: string | null }>({
    name: 'workflow.events.match_camunda_message',
    text: `SELECT s.wait_id, s.process_instance_id, s.process_key, pi.definition_id, pi.business_key
           FROM event_subscriptions s JOIN process_instances pi ON pi.id = s.process_instance_id
           WHERE s.org_id = $1 AND s.kind = 'message' AND s.name = $2
             AND ($3::text IS NULL OR pi.business_key = $3)
             AND ($4::uuid IS NULL OR s.process_instance_id = $4)
             AND ($4::uuid IS NOT NULL OR s.correlation_key IS NULL)
             AND NOT EXISTS (SELECT 1 FROM jsonb_each($5::jsonb) AS e
                             WHERE pi.variables -> e.key IS DISTINCT FROM e.value)
             AND NOT pi.suspended
           ORDER BY s.created_at, s.wait_id
           LIMIT $6`,
    values: [
      input.orgId,
      input.messageName,
      input.businessKey,
      input.processInstanceId,
      JSON.stringify(input.variables),
      input.limit,
    ],
  });
  return rows.map((row) => ({
    ...toSubscription(row),
    definitionId: row.definition_id,
    businessKey: row.business_key,
  }));
}
