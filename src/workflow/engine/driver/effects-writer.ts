import { randomUUID } from 'node:crypto';
import type { Effect, HistoryEntry, Incident, Wait } from '../runtime/index.js';
import {
  addSubscriptionWrites,
  isSubscriptionWait,
  type SubscriptionWait,
  type ThrownEvent,
} from './subscription-writes.js';
import type { WriteStatement } from './write-statement.js';
import { InvalidTimerError, parseTimerSchedule, type TimerSpec } from '../../timers/index.js';
import { extensionJobPolicy } from './extension-jobs.js';
import { addOutboxWrites } from './outbox-writes.js';

/** The instance whose effects are written. */
export interface EffectTarget {
  instanceId: string;
  orgId: string;
  processKey: string;
  /** The engine call's time (ISO), for rows the engine does not stamp itself. */
  now: string;
  /**
   * An SQL condition every write must meet: the instance row's guarded update succeeded. Data-
   * modifying CTEs always run, so each one checks it; null when nothing can conflict (a start).
   */
  guard: string | null;
}

/** What the caller does after commit, and what metrics count. */
export interface WrittenEffects {
  /** Topics that gained fetchable external tasks (to wake long-polling workers). */
  topics: Set<string>;
  externalTasksCreated: number;
  userTasksCreated: number;
  incidentsRaised: number;
  /** Connector jobs written (to wake the connector executor). */
  connectorJobsCreated: number;
  /** Message waits opened by the call and still open (a buffered message may be waiting for them). */
  messageWaits: Extract<Wait, { kind: 'message' }>[];
  /** Messages and signals the instance threw, written to `event_outbox`; delivered after commit. */
  thrown: ThrownEvent[];
}

type ExternalTaskWait = Extract<Wait, { kind: 'externalTask' }>;
type TimerWait = Extract<Wait, { kind: 'timer' }>;
type UserTaskWait = Extract<Wait, { kind: 'userTask' }>;
type ScriptWait = Extract<Wait, { kind: 'script' }>;

/**
 * Adds one engine call's effects to `statement`, one CTE per kind of write. A wait opened and closed
 * within the same call (a boundary interrupting at once) never reaches a table, so the writes are
 * the net change. The caller adds the instance row and runs the statement.
 */
export function addEffects(
  statement: WriteStatement,
  target: EffectTarget,
  effects: readonly Effect[],
): WrittenEffects {
  const newExternal = new Map<string, ExternalTaskWait>();
  const newUser = new Map<string, UserTaskWait>();
  const newTimers = new Map<string, TimerWait>();
  // Script waits still open when the call is written were not answered at once (pipelines are):
  // they are connector jobs, run later by the connector executor.
  const newJobs = new Map<string, ScriptWait>();
  const closedWaits: string[] = [];
  let closedJobs = false;
  const newIncidents = new Map<string, Incident & { resolvedAt: string | null }>();
  const resolvedIncidents: string[] = [];
  const history: HistoryEntry[] = [];
  const newSubscriptions = new Map<string, SubscriptionWait>();
  const closedSubscriptions: string[] = [];
  const thrown: ThrownEvent[] = [];

  for (const effect of effects) {
    switch (effect.type) {
      case 'waitOpened':
        if (effect.wait.kind === 'externalTask') newExternal.set(effect.wait.waitId, effect.wait);
        else if (effect.wait.kind === 'userTask') newUser.set(effect.wait.waitId, effect.wait);
        else if (effect.wait.kind === 'timer') newTimers.set(effect.wait.waitId, effect.wait);
        else if (effect.wait.kind === 'script') newJobs.set(effect.wait.waitId, effect.wait);
        else if (isSubscriptionWait(effect.wait)) newSubscriptions.set(effect.wait.waitId, effect.wait);
        else if (effect.wait.kind === 'send') {
          const { elementId, messageName, correlationKey, variables } = effect.wait;
          thrown.push({
            id: randomUUID(),
            elementId,
            kind: 'message',
            messageName,
            correlationKey,
            variables,
          });
        }
        break;
      case 'waitClosed':
        if (effect.kind === 'message' || effect.kind === 'signal') {
          if (!newSubscriptions.delete(effect.waitId)) closedSubscriptions.push(effect.waitId);
        } else if (
          !newExternal.delete(effect.waitId) &&
          !newUser.delete(effect.waitId) &&
          !newTimers.delete(effect.waitId) &&
          !newJobs.delete(effect.waitId)
        ) {
          closedWaits.push(effect.waitId);
          if (effect.kind === 'script') closedJobs = true;
        }
        break;
      case 'incidentRaised':
        newIncidents.set(effect.incident.incidentId, { ...effect.incident, resolvedAt: null });
        break;
      case 'incidentResolved': {
        const pending = newIncidents.get(effect.incidentId);
        if (pending) pending.resolvedAt = target.now;
        else resolvedIncidents.push(effect.incidentId);
        break;
      }
      case 'history':
        history.push(effect.entry);
        break;
      case 'messageThrown': {
        const { elementId, messageName, correlationKey, variables } = effect;
        thrown.push({ id: randomUUID(), elementId, kind: 'message', messageName, correlationKey, variables });
        break;
      }
      case 'signalThrown': {
        const { elementId, signalName, variables } = effect;
        thrown.push({ id: randomUUID(), elementId, kind: 'signal', signalName, variables });
        break;
      }
      default:
        break;
    }
  }

  const and = target.guard ? ` AND ${target.guard}` : '';
  const where = target.guard ? ` WHERE ${target.guard}` : '';
  let instanceParam: string | undefined;
  let orgParam: string | undefined;
  const instance = () => (instanceParam ??= statement.param(target.instanceId));
  const org = () => (orgParam ??= statement.param(target.orgId));
  if (closedWaits.length > 0) {
    const ids = statement.param(closedWaits);
    statement.with(
      'closed_external',
      `DELETE FROM external_tasks WHERE id = ANY(${ids}::uuid[]) AND process_instance_id = ${instance()}${and}`,
    );
    statement.with(
      'closed_user',
      `DELETE FROM user_tasks WHERE id = ANY(${ids}::uuid[]) AND process_instance_id = ${instance()}${and}`,
    );
    statement.with(
      'closed_timers',
      `DELETE FROM timer_jobs WHERE wait_id = ANY(${ids}::uuid[]) AND process_instance_id = ${instance()}${and}`,
    );
    // Only calls that closed a script wait touch connector_jobs, so other processes pay nothing.
    if (closedJobs) {
      statement.with(
        'closed_connector_jobs',
        `DELETE FROM connector_jobs WHERE wait_id = ANY(${ids}::uuid[]) AND process_instance_id = ${instance()}${and}`,
      );
    }
  }
  if (newJobs.size > 0) {
    const waits = [...newJobs.values()];
    const policies = waits.map(extensionJobPolicy);
    statement.with(
      'new_connector_jobs',
      `INSERT INTO connector_jobs (org_id, process_instance_id, wait_id, element_id, connector, due_at, retries,
                                   backoff_ms, max_backoff_ms, created_at)
       SELECT ${org()}, ${instance()}, j.wait_id, j.element_id, j.connector, ${statement.param(target.now)},
              j.retries, j.backoff_ms, j.max_backoff_ms, ${statement.param(target.now)}
       FROM unnest(${statement.param(waits.map((w) => w.waitId))}::uuid[], ${statement.param(waits.map((w) => w.elementId))}::text[],
                   ${statement.param(waits.map((w) => w.extension.name))}::text[], ${statement.param(policies.map((p) => p.retries))}::int[],
                   ${statement.param(policies.map((p) => p.backoffMs))}::int[], ${statement.param(policies.map((p) => p.maxBackoffMs))}::int[])
         AS j(wait_id, element_id, connector, retries, backoff_ms, max_backoff_ms)${where}`,
    );
  }
  if (newExternal.size > 0) {
    const waits = [...newExternal.values()];
    statement.with(
      'new_external',
      `INSERT INTO external_tasks (id, org_id, process_instance_id, activity_id, topic, variables, retries)
       SELECT w.id, ${org()}, ${instance()}, w.activity_id, w.topic, w.variables, w.retries
       FROM unnest(${statement.param(waits.map((w) => w.waitId))}::uuid[], ${statement.param(waits.map((w) => w.elementId))}::text[],
                   ${statement.param(waits.map((w) => w.topic))}::text[], ${statement.param(waits.map((w) => JSON.stringify(w.variables)))}::jsonb[],
                   ${statement.param(waits.map((w) => w.retries))}::int[])
         AS w(id, activity_id, topic, variables, retries)${where}`,
    );
  }
  if (newUser.size > 0) {
    const waits = [...newUser.values()];
    statement.with(
      'new_user',
      `INSERT INTO user_tasks (id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, variables)
       SELECT w.id, ${org()}, ${instance()}, w.activity_id, w.name, w.assignee,
              ARRAY(SELECT jsonb_array_elements_text(w.groups)), w.variables
       FROM unnest(${statement.param(waits.map((w) => w.waitId))}::uuid[], ${statement.param(waits.map((w) => w.elementId))}::text[],
                   ${statement.param(waits.map((w) => w.name))}::text[], ${statement.param(waits.map((w) => w.assignee))}::text[],
                   ${statement.param(waits.map((w) => JSON.stringify(w.candidateGroups)))}::jsonb[],
                   ${statement.param(waits.map((w) => JSON.stringify(w.variables)))}::jsonb[])
         AS w(id, activity_id, name, assignee, groups, variables)${where}`,
    );
  }
  if (newSubscriptions.size > 0 || closedSubscriptions.length > 0) {
    const subscriptionTarget = { instance, org, processKey: target.processKey, now: target.now };
    addSubscriptionWrites(
      statement,
      subscriptionTarget,
      [...newSubscriptions.values()],
      closedSubscriptions,
      {
        and,
        where,
      },
    );
  }
  // Thrown events become outbox rows of this same statement: they exist exactly if the write commits.
  if (thrown.length > 0) addOutboxWrites(statement, { instance, org, now: target.now }, thrown, where);
  const timers = armTimers([...newTimers.values()], target.now);
  if (timers.length > 0) {
    statement.with(
      'new_timers',
      `INSERT INTO timer_jobs (org_id, process_instance_id, wait_id, element_id, schedule, due_at, created_at)
       SELECT ${org()}, ${instance()}, t.wait_id, t.element_id, t.schedule, t.due_at, ${statement.param(target.now)}
       FROM unnest(${statement.param(timers.map((t) => t.waitId))}::uuid[], ${statement.param(timers.map((t) => t.elementId))}::text[],
                   ${statement.param(timers.map((t) => JSON.stringify(t.schedule)))}::jsonb[],
                   ${statement.param(timers.map((t) => t.dueAt))}::timestamptz[])
         AS t(wait_id, element_id, schedule, due_at)${where}`,
    );
  }
  if (newIncidents.size > 0) {
    const incidents = [...newIncidents.values()];
    statement.with(
      'new_incidents',
      `INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, wait_id, message, created_at, resolved_at)
       SELECT i.id, ${org()}, ${instance()}, i.activity_id, i.kind, i.wait_id, i.message, i.created_at, i.resolved_at
       FROM unnest(${statement.param(incidents.map((i) => i.incidentId))}::uuid[], ${statement.param(incidents.map((i) => i.elementId))}::text[],
                   ${statement.param(incidents.map((i) => i.kind))}::text[], ${statement.param(incidents.map((i) => i.waitId))}::uuid[],
                   ${statement.param(incidents.map((i) => i.message))}::text[], ${statement.param(incidents.map((i) => i.createdAt))}::timestamptz[],
                   ${statement.param(incidents.map((i) => i.resolvedAt))}::timestamptz[])
         AS i(id, activity_id, kind, wait_id, message, created_at, resolved_at)${where}`,
    );
  }
  if (resolvedIncidents.length > 0) {
    statement.with(
      'resolved_incidents',
      `UPDATE incidents SET resolved_at = ${statement.param(target.now)}
       WHERE id = ANY(${statement.param(resolvedIncidents)}::uuid[]) AND resolved_at IS NULL${and}`,
    );
  }
  if (history.length > 0) {
    statement.with(
      'new_history',
      `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
       SELECT ${instance()}, h.kind, h.element_id, h.element_type, h.token_id, h.at, h.data
       FROM unnest(${statement.param(history.map((h) => h.kind))}::text[], ${statement.param(history.map((h) => h.elementId))}::text[],
                   ${statement.param(history.map((h) => h.elementType))}::text[], ${statement.param(history.map((h) => h.tokenId))}::text[],
                   ${statement.param(history.map((h) => h.at))}::timestamptz[], ${statement.param(history.map((h) => JSON.stringify(h.data)))}::jsonb[])
         WITH ORDINALITY AS h(kind, element_id, element_type, token_id, at, data, n)${where}
       ORDER BY h.n`,
    );
  }
  return {
    topics: new Set([...newExternal.values()].map((w) => w.topic)),
    externalTasksCreated: newExternal.size,
    userTasksCreated: newUser.size,
    incidentsRaised: newIncidents.size,
    connectorJobsCreated: newJobs.size,
    messageWaits: [...newSubscriptions.values()].filter((w) => w.kind === 'message'),
    thrown,
  };
}

/** A timer wait as a row of `timer_jobs`: its schedule as text and its first due time. */
function armTimers(waits: TimerWait[], now: string) {
  const armed: { waitId: string; elementId: string; schedule: TimerSpec; dueAt: Date }[] = [];
  for (const wait of waits) {
    const schedule: TimerSpec = {
      kind: wait.timer.kind,
      value: typeof wait.value === 'string' ? wait.value : JSON.stringify(wait.value),
    };
    try {
      const dueAt = parseTimerSchedule(schedule).first(new Date(now));
      // A schedule that never fires (a repetition count of zero) leaves the wait open, as it should.
      if (dueAt !== null) armed.push({ waitId: wait.waitId, elementId: wait.elementId, schedule, dueAt });
    } catch (error) {
      // Literal timers are checked at deploy time; a FEEL timer that evaluated to nonsense never fires.
      if (!(error instanceof InvalidTimerError)) throw error;
    }
  }
  return armed;
}
