import type { Wait } from '../runtime/index.js';
import { columnOf, instanceIds, nows, orgIds, type Tagged } from './tagged-rows.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';

/** A message or signal wait: what becomes a row of `event_subscriptions`. */
export type SubscriptionWait = Extract<Wait, { kind: 'message' | 'signal' }>;

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

/** True for the waits that are subscriptions. */
export function isSubscriptionWait(wait: Wait): wait is SubscriptionWait {
  return wait.kind === 'message' || wait.kind === 'signal';
}

/**
 * Adds the subscription rows engine calls opened and deletes those they closed, as CTEs of the
 * calls' statement (each row kept to instances that pass the guard, through `and`/`where` of the
 * instance id column), so a subscription exists exactly while its wait is open.
 */
export function addSubscriptionWrites(
  statement: StatementBuilder,
  opened: readonly Tagged<SubscriptionWait>[],
  closed: readonly Tagged<string>[],
  guard: { and: (instanceIdSql: string) => string; where: (instanceIdSql: string) => string },
): void {
  if (closed.length > 0) {
    const rows = unnestParams(statement, [instanceIds(closed), columnOf(closed, (id) => id, 'uuid')]);
    statement.with(
      'closed_subscriptions',
      `DELETE FROM event_subscriptions s
       USING ${rows} AS c(instance_id, wait_id)
       WHERE s.wait_id = c.wait_id AND s.process_instance_id = c.instance_id${guard.and('c.instance_id')}`,
    );
  }
  if (opened.length === 0) return;
  const rows = unnestParams(statement, [
    orgIds(opened),
    instanceIds(opened),
    [opened.map((o) => o.processKey), 'text'],
    nows(opened),
    columnOf(opened, (w) => w.waitId, 'uuid'),
    columnOf(opened, (w) => w.elementId, 'text'),
    columnOf(opened, (w) => w.kind, 'text'),
    columnOf(opened, (w) => (w.kind === 'message' ? w.messageName : w.signalName), 'text'),
    columnOf(opened, (w) => (w.kind === 'message' ? w.correlationKey : null), 'text'),
  ]);
  statement.with(
    'new_subscriptions',
    `INSERT INTO event_subscriptions
       (wait_id, org_id, process_instance_id, process_key, element_id, kind, name, correlation_key, created_at)
     SELECT s.wait_id, s.org_id, s.instance_id, s.process_key, s.element_id, s.kind, s.name, s.correlation_key, s.now
     FROM ${rows} AS s(org_id, instance_id, process_key, now, wait_id, element_id, kind, name, correlation_key)${guard.where('s.instance_id')}`,
  );
}
