import { randomUUID } from 'node:crypto';
import type { Effect, HistoryEntry, Incident, Wait } from '../runtime/index.js';
import {
  addSubscriptionWrites,
  isSubscriptionWait,
  type SubscriptionWait,
  type ThrownEvent,
} from './subscription-writes.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';
import { columnOf, instanceIds, nows, orgIds, type Tagged } from './tagged-rows.js';
import { InvalidTimerError, parseTimerSchedule, type TimerSpec } from '../schedule/schedule.js';
import { extensionJobPolicy, type ExtensionJobPolicy } from './extension-jobs.js';
import { addOutboxWrites } from './outbox-writes.js';

/** The instance whose effects are written. */
export interface EffectTarget {
  instanceId: string;
  orgId: string;
  processKey: string;
  /** The engine call's time (ISO), for rows the engine does not stamp itself. */
  now: string;
}

/**
 * The SQL condition every write of an instance must meet (its row's guarded update succeeded), given
 * the SQL of that instance's id in the written row. Data-modifying CTEs always run, so each checks it.
 */
export type InstanceGuard = (instanceIdSql: string) => string;

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
type ArmedTimer = { waitId: string; elementId: string; schedule: TimerSpec; dueAt: Date };

// Closed waits by the table that holds their rows; other kinds (decisions, call activities, send
// tasks) have none.
const closedTables = {
  externalTask: { cte: 'closed_external', table: 'external_tasks', column: 'id' },
  userTask: { cte: 'closed_user', table: 'user_tasks', column: 'id' },
  timer: { cte: 'closed_timers', table: 'timer_jobs', column: 'wait_id' },
  script: { cte: 'closed_connector_jobs', table: 'connector_jobs', column: 'wait_id' },
} as const;
type ClosedKind = keyof typeof closedTables;

/**
 * The effects of one or more engine calls, gathered by kind of write and written set-wise: one CTE
 * per kind, whatever the number of instances, each row carrying its instance id so the guard keeps
 * the rows of instances whose update failed out. A wait opened and closed within the same call (a
 * boundary interrupting at once) never reaches a table, so the writes are each call's net change.
 */
export class EffectWrites {
  private readonly closed: Record<ClosedKind, Tagged<string>[]> = {
    externalTask: [],
    userTask: [],
    timer: [],
    script: [],
  };
  private readonly connectorJobs: Tagged<{ wait: ScriptWait; policy: ExtensionJobPolicy }>[] = [];
  private readonly externalTasks: Tagged<ExternalTaskWait>[] = [];
  private readonly userTasks: Tagged<UserTaskWait>[] = [];
  private readonly timers: Tagged<ArmedTimer>[] = [];
  private readonly incidents: Tagged<Incident & { resolvedAt: string | null }>[] = [];
  private readonly resolvedIncidents: Tagged<string>[] = [];
  private readonly history: Tagged<HistoryEntry>[] = [];
  private readonly openedSubscriptions: Tagged<SubscriptionWait>[] = [];
  private readonly closedSubscriptions: Tagged<string>[] = [];
  private readonly thrown: Tagged<ThrownEvent>[] = [];

  /** Adds one engine call's effects on `target`; returns what they will have written. */
  add(target: EffectTarget, effects: readonly Effect[]): WrittenEffects {
    const newExternal = new Map<string, ExternalTaskWait>();
    const newUser = new Map<string, UserTaskWait>();
    const newTimers = new Map<string, TimerWait>();
    // Script waits still open when the call is written were not answered at once (pipelines are):
    // they are connector jobs, run later by the connector executor.
    const newJobs = new Map<string, ScriptWait>();
    const newIncidents = new Map<string, Incident & { resolvedAt: string | null }>();
    const newSubscriptions = new Map<string, SubscriptionWait>();
    const thrown: ThrownEvent[] = [];
    const tag = <T>(item: T): Tagged<T> => ({ ...target, item });

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
            if (!newSubscriptions.delete(effect.waitId)) this.closedSubscriptions.push(tag(effect.waitId));
          } else if (
            !newExternal.delete(effect.waitId) &&
            !newUser.delete(effect.waitId) &&
            !newTimers.delete(effect.waitId) &&
            !newJobs.delete(effect.waitId) &&
            effect.kind in closedTables
          ) {
            this.closed[effect.kind as ClosedKind].push(tag(effect.waitId));
          }
          break;
        case 'incidentRaised':
          newIncidents.set(effect.incident.incidentId, { ...effect.incident, resolvedAt: null });
          break;
        case 'incidentResolved': {
          const pending = newIncidents.get(effect.incidentId);
          if (pending) pending.resolvedAt = target.now;
          else this.resolvedIncidents.push(tag(effect.incidentId));
          break;
        }
        case 'history':
          this.history.push(tag(effect.entry));
          break;
        case 'messageThrown': {
          const { elementId, messageName, correlationKey, variables } = effect;
          thrown.push({
            id: randomUUID(),
            elementId,
            kind: 'message',
            messageName,
            correlationKey,
            variables,
          });
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

    for (const wait of newJobs.values())
      this.connectorJobs.push(tag({ wait, policy: extensionJobPolicy(wait) }));
    for (const wait of newExternal.values()) this.externalTasks.push(tag(wait));
    for (const wait of newUser.values()) this.userTasks.push(tag(wait));
    for (const timer of armTimers([...newTimers.values()], target.now)) this.timers.push(tag(timer));
    for (const incident of newIncidents.values()) this.incidents.push(tag(incident));
    for (const wait of newSubscriptions.values()) this.openedSubscriptions.push(tag(wait));
    for (const event of thrown) this.thrown.push(tag(event));
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

  /** Adds the gathered writes to `statement`, each kept to instances that pass `guard` (null: all). */
  write(statement: StatementBuilder, guard: InstanceGuard | null): void {
    const and = (column: string) => (guard ? ` AND ${guard(column)}` : '');
    const where = (column: string) => (guard ? ` WHERE ${guard(column)}` : '');
    const rowsOf = unnestParams.bind(null, statement);

    for (const kind of Object.keys(closedTables) as ClosedKind[]) {
      const rows = this.closed[kind];
      if (rows.length === 0) continue;
      const { cte, table, column } = closedTables[kind];
      statement.with(
        cte,
        `DELETE FROM ${table} t
         USING ${rowsOf([instanceIds(rows), columnOf(rows, (id) => id, 'uuid')])} AS c(instance_id, wait_id)
         WHERE t.${column} = c.wait_id AND t.process_instance_id = c.instance_id${and('c.instance_id')}`,
      );
    }
    const jobs = this.connectorJobs;
    if (jobs.length > 0) {
      const rows = rowsOf([
        orgIds(jobs),
        instanceIds(jobs),
        nows(jobs),
        columnOf(jobs, (j) => j.wait.waitId, 'uuid'),
        columnOf(jobs, (j) => j.wait.elementId, 'text'),
        columnOf(jobs, (j) => j.wait.extension.name, 'text'),
        columnOf(jobs, (j) => j.policy.retries, 'int'),
        columnOf(jobs, (j) => j.policy.backoffMs, 'int'),
        columnOf(jobs, (j) => j.policy.maxBackoffMs, 'int'),
      ]);
      statement.with(
        'new_connector_jobs',
        `INSERT INTO connector_jobs (org_id, process_instance_id, wait_id, element_id, connector, due_at, retries,
                                     backoff_ms, max_backoff_ms, created_at)
         SELECT j.org_id, j.instance_id, j.wait_id, j.element_id, j.connector, j.now, j.retries, j.backoff_ms,
                j.max_backoff_ms, j.now
         FROM ${rows} AS j(org_id, instance_id, now, wait_id, element_id, connector, retries, backoff_ms,
                           max_backoff_ms)${where('j.instance_id')}`,
      );
    }
    const external = this.externalTasks;
    if (external.length > 0) {
      const rows = rowsOf([
        orgIds(external),
        instanceIds(external),
        columnOf(external, (w) => w.waitId, 'uuid'),
        columnOf(external, (w) => w.elementId, 'text'),
        columnOf(external, (w) => w.topic, 'text'),
        columnOf(external, (w) => JSON.stringify(w.variables), 'jsonb'),
        columnOf(external, (w) => w.retries, 'int'),
      ]);
      statement.with(
        'new_external',
        `INSERT INTO external_tasks (id, org_id, process_instance_id, activity_id, topic, variables, retries)
         SELECT w.id, w.org_id, w.instance_id, w.activity_id, w.topic, w.variables, w.retries
         FROM ${rows} AS w(org_id, instance_id, id, activity_id, topic, variables, retries)${where('w.instance_id')}`,
      );
    }
    const user = this.userTasks;
    if (user.length > 0) {
      const rows = rowsOf([
        orgIds(user),
        instanceIds(user),
        columnOf(user, (w) => w.waitId, 'uuid'),
        columnOf(user, (w) => w.elementId, 'text'),
        columnOf(user, (w) => w.name, 'text'),
        columnOf(user, (w) => w.assignee, 'text'),
        columnOf(user, (w) => JSON.stringify(w.candidateGroups), 'jsonb'),
        columnOf(user, (w) => JSON.stringify(w.variables), 'jsonb'),
      ]);
      statement.with(
        'new_user',
        `INSERT INTO user_tasks (id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, variables)
         SELECT w.id, w.org_id, w.instance_id, w.activity_id, w.name, w.assignee,
                ARRAY(SELECT jsonb_array_elements_text(w.groups)), w.variables
         FROM ${rows} AS w(org_id, instance_id, id, activity_id, name, assignee, groups, variables)${where('w.instance_id')}`,
      );
    }
    addSubscriptionWrites(statement, this.openedSubscriptions, this.closedSubscriptions, { and, where });
    // Thrown events become outbox rows of this same statement: they exist exactly if the write commits.
    addOutboxWrites(statement, this.thrown, where);
    const timers = this.timers;
    if (timers.length > 0) {
      const rows = rowsOf([
        orgIds(timers),
        instanceIds(timers),
        nows(timers),
        columnOf(timers, (t) => t.waitId, 'uuid'),
        columnOf(timers, (t) => t.elementId, 'text'),
        columnOf(timers, (t) => JSON.stringify(t.schedule), 'jsonb'),
        columnOf(timers, (t) => t.dueAt, 'timestamptz'),
      ]);
      statement.with(
        'new_timers',
        `INSERT INTO timer_jobs (org_id, process_instance_id, wait_id, element_id, schedule, due_at, created_at)
         SELECT t.org_id, t.instance_id, t.wait_id, t.element_id, t.schedule, t.due_at, t.now
         FROM ${rows} AS t(org_id, instance_id, now, wait_id, element_id, schedule, due_at)${where('t.instance_id')}`,
      );
    }
    const incidents = this.incidents;
    if (incidents.length > 0) {
      const rows = rowsOf([
        orgIds(incidents),
        instanceIds(incidents),
        columnOf(incidents, (i) => i.incidentId, 'uuid'),
        columnOf(incidents, (i) => i.elementId, 'text'),
        columnOf(incidents, (i) => i.kind, 'text'),
        columnOf(incidents, (i) => i.waitId, 'uuid'),
        columnOf(incidents, (i) => i.message, 'text'),
        columnOf(incidents, (i) => i.createdAt, 'timestamptz'),
        columnOf(incidents, (i) => i.resolvedAt, 'timestamptz'),
      ]);
      statement.with(
        'new_incidents',
        `INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, wait_id, message, created_at, resolved_at)
         SELECT i.id, i.org_id, i.instance_id, i.activity_id, i.kind, i.wait_id, i.message, i.created_at, i.resolved_at
         FROM ${rows} AS i(org_id, instance_id, id, activity_id, kind, wait_id, message, created_at,
                           resolved_at)${where('i.instance_id')}`,
      );
    }
    const resolved = this.resolvedIncidents;
    if (resolved.length > 0) {
      const rows = rowsOf([instanceIds(resolved), nows(resolved), columnOf(resolved, (id) => id, 'uuid')]);
      statement.with(
        'resolved_incidents',
        `UPDATE incidents SET resolved_at = r.now
         FROM ${rows} AS r(instance_id, now, id)
         WHERE incidents.id = r.id AND incidents.resolved_at IS NULL${and('r.instance_id')}`,
      );
    }
    const history = this.history;
    if (history.length > 0) {
      const rows = rowsOf([
        instanceIds(history),
        columnOf(history, (h) => h.kind, 'text'),
        columnOf(history, (h) => h.elementId, 'text'),
        columnOf(history, (h) => h.elementType, 'text'),
        columnOf(history, (h) => h.tokenId, 'text'),
        columnOf(history, (h) => h.at, 'timestamptz'),
        columnOf(history, (h) => JSON.stringify(h.data), 'jsonb'),
      ]);
      statement.with(
        'new_history',
        `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
         SELECT h.instance_id, h.kind, h.element_id, h.element_type, h.token_id, h.at, h.data
         FROM ${rows} WITH ORDINALITY AS h(instance_id, kind, element_id, element_type, token_id, at, data, n)${where('h.instance_id')}
         ORDER BY h.n`,
      );
    }
  }
}

/**
 * Adds one engine call's effects to `statement` (see {@link EffectWrites}); `guard` is the SQL
 * condition of the instance's own write (null when nothing can conflict, a start). The caller adds
 * the instance row and runs the statement.
 */
export function addEffects(
  statement: StatementBuilder,
  target: EffectTarget,
  effects: readonly Effect[],
  guard: string | null,
): WrittenEffects {
  const writes = new EffectWrites();
  const written = writes.add(target, effects);
  writes.write(statement, guard === null ? null : () => guard);
  return written;
}

/** A timer wait as a row of `timer_jobs`: its schedule as text and its first due time. */
function armTimers(waits: TimerWait[], now: string): ArmedTimer[] {
  const armed: ArmedTimer[] = [];
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
