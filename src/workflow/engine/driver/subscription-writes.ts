import type { Wait } from '../runtime/index.js';
import type { Tagged } from './effects-writer.js';
import type { StatementBuilder } from './write-statement.js';

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

/** How the effects writer builds a CTE's parameters and guard (see EffectWrites.write). */
export interface RowsSql {
  /** `WHERE <guard of the instance id column>`, or nothing. */
  where: (instanceIdSql: string) => string;
  /** `AND <guard of the instance id column>`, or nothing. */
  and: (instanceIdSql: string) => string;
  /** An array parameter with its cast. */
  p: (values: unknown[], type: string) => string;
}

/**
 * Adds the subscription rows engine calls opened and deletes those they closed, as CTEs of the
 * calls' statement (each row kept to instances that pass the guard), so a subscription exists
 * exactly while its wait is open.
 */
export function addSubscriptionWrites(
  statement: StatementBuilder,
  opened: readonly Tagged<SubscriptionWait>[],
  closed: readonly Tagged<string>[],
  { where, and, p }: RowsSql,
): void {
  if (closed.length > 0) {
    statement.with(
      'closed_subscriptions',
      `DELETE FROM event_subscriptions s
       USING unnest(${p(
         closed.map((c) => c.instanceId),
         'uuid',
       )}, ${p(
         closed.map((c) => c.item),
         'uuid',
       )}) AS c(instance_id, wait_id)
       WHERE s.wait_id = c.wait_id AND s.process_instance_id = c.instance_id${and('c.instance_id')}`,
    );
  }
  if (opened.length === 0) return;
  const waits = opened.map((o) => o.item);
  statement.with(
    'new_subscriptions',
    `INSERT INTO event_subscriptions
       (wait_id, org_id, process_instance_id, process_key, element_id, kind, name, correlation_key, created_at)
     SELECT s.wait_id, s.org_id, s.instance_id, s.process_key, s.element_id, s.kind, s.name, s.correlation_key, s.now
     FROM unnest(${p(
       opened.map((o) => o.orgId),
       'uuid',
     )}, ${p(
       opened.map((o) => o.instanceId),
       'uuid',
     )},
                 ${p(
                   opened.map((o) => o.processKey),
                   'text',
                 )}, ${p(
                   opened.map((o) => o.now),
                   'timestamptz',
                 )},
                 ${p(
                   waits.map((w) => w.waitId),
                   'uuid',
                 )}, ${p(
                   waits.map((w) => w.elementId),
                   'text',
                 )},
                 ${p(
                   waits.map((w) => w.kind),
                   'text',
                 )},
                 ${p(
                   waits.map((w) => (w.kind === 'message' ? w.messageName : w.signalName)),
                   'text',
                 )},
                 ${p(
                   waits.map((w) => (w.kind === 'message' ? w.correlationKey : null)),
                   'text',
                 )})
       AS s(org_id, instance_id, process_key, now, wait_id, element_id, kind, name, correlation_key)${where('s.instance_id')}`,
  );
}
