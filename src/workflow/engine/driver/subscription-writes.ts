import type { Wait } from '../runtime/index.js';
import type { WriteStatement } from './write-statement.js';

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
 * Adds the subscription rows an engine call opened and deletes those it closed, as CTEs of the
 * call's one statement (`and`/`where` carry the instance guard), so a subscription exists exactly
 * while its wait is open.
 */
export function addSubscriptionWrites(
  statement: WriteStatement,
  target: { instance: () => string; org: () => string; processKey: string; now: string },
  opened: readonly SubscriptionWait[],
  closed: readonly string[],
  guard: { and: string; where: string },
): void {
  if (closed.length > 0) {
    statement.with(
      'closed_subscriptions',
      `DELETE FROM event_subscriptions WHERE wait_id = ANY(${statement.param(closed)}::uuid[])
         AND process_instance_id = ${target.instance()}${guard.and}`,
    );
  }
  if (opened.length === 0) return;
  statement.with(
    'new_subscriptions',
    `INSERT INTO event_subscriptions
       (wait_id, org_id, process_instance_id, process_key, element_id, kind, name, correlation_key, created_at)
     SELECT s.wait_id, ${target.org()}, ${target.instance()}, ${statement.param(target.processKey)}, s.element_id,
            s.kind, s.name, s.correlation_key, ${statement.param(target.now)}
     FROM unnest(${statement.param(opened.map((w) => w.waitId))}::uuid[], ${statement.param(opened.map((w) => w.elementId))}::text[],
                 ${statement.param(opened.map((w) => w.kind))}::text[],
                 ${statement.param(opened.map((w) => (w.kind === 'message' ? w.messageName : w.signalName)))}::text[],
                 ${statement.param(opened.map((w) => (w.kind === 'message' ? w.correlationKey : null)))}::text[])
       AS s(wait_id, element_id, kind, name, correlation_key)${guard.where}`,
  );
}
