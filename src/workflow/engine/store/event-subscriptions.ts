import type { Wait } from '../runtime/index.js';
import { effectColumns, itemColumn, type InsertRows, type WaitRows } from './set-wise-write.js';

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

/** The engine's delete of the subscriptions its calls closed. */
export const subscriptionWaits: WaitRows = {
  cte: 'closed_subscriptions',
  table: 'event_subscriptions',
  waitColumn: 'wait_id',
};
