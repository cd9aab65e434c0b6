import { randomUUID } from 'node:crypto';
import type { ContinuationWait, Effect, HistoryEntry, ScriptWait, Wait } from '../runtime/index.js';
import { InvalidTimerError, parseTimerSchedule, type TimerSpec } from '../schedule/schedule.js';
import { connectorJobInserts, connectorJobWaits, type NewConnectorJob } from '../store/connector-jobs.js';
import { continuationJobInserts, continuationJobWaits } from '../store/continuation-jobs.js';
import { outboxInserts, type ThrownEvent } from '../store/event-outbox.js';
import {
  isSubscriptionWait,
  subscriptionInserts,
  subscriptionWaits,
  type SubscriptionWait,
} from '../store/event-subscriptions.js';
import { extensionJobPolicy } from '../store/extension-jobs.js';
import { externalTaskInserts, externalTaskWaits, type ExternalTaskWait } from '../store/external-tasks.js';
import { incidentInserts, resolveIncidents, type RaisedIncident } from '../store/incidents.js';
import { historyInserts } from '../store/process-history.js';
import { deleteWaitRows, insertRows, rowGuard, type WaitRows } from '../store/set-wise-write.js';
import type { EffectTarget, Tagged } from '../store/tagged-rows.js';
import { timerJobInserts, timerJobWaits, type ArmedTimer } from '../store/timer-jobs.js';
import { assignUserTasks, userTaskInserts, userTaskWaits, type UserTaskWait } from '../store/user-tasks.js';
import type { StatementBuilder } from '../store/write-statement.js';

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
  /** Continuation jobs written (to wake the continuation executor). */
  continuationJobsCreated: number;
  /** Message waits opened by the call and still open (a buffered message may be waiting for them). */
  messageWaits: Extract<Wait, { kind: 'message' }>[];
  /** Messages and signals the instance threw, written to `event_outbox`; delivered after commit. */
  thrown: ThrownEvent[];
}

type TimerWait = Extract<Wait, { kind: 'timer' }>;

// Closed waits by the table that holds their rows; other kinds (decisions, call activities, send
// tasks) have none.
const closedTables = {
  externalTask: externalTaskWaits,
  userTask: userTaskWaits,
  timer: timerJobWaits,
  script: connectorJobWaits,
  continuation: continuationJobWaits,
} as const satisfies Record<string, WaitRows>;
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
    continuation: [],
  };
  private readonly connectorJobs: Tagged<NewConnectorJob>[] = [];
  private readonly continuationJobs: Tagged<ContinuationWait>[] = [];
  private readonly externalTasks: Tagged<ExternalTaskWait>[] = [];
  private readonly userTasks: Tagged<UserTaskWait>[] = [];
  private readonly timers: Tagged<ArmedTimer>[] = [];
  private readonly incidents: Tagged<RaisedIncident>[] = [];
  private readonly resolvedIncidents: Tagged<string>[] = [];
  private readonly history: Tagged<HistoryEntry>[] = [];
  private readonly openedSubscriptions: Tagged<SubscriptionWait>[] = [];
  private readonly closedSubscriptions: Tagged<string>[] = [];
  private readonly thrown: Tagged<ThrownEvent>[] = [];
  private readonly assigned: Tagged<{ waitId: string; assignee: string | null }>[] = [];

  /** Adds one engine call's effects on `target`; returns what they will have written. */
  add(target: EffectTarget, effects: readonly Effect[]): WrittenEffects {
    const newExternal = new Map<string, ExternalTaskWait>();
    const newUser = new Map<string, UserTaskWait>();
    const newTimers = new Map<string, TimerWait>();
    // Script waits still open when the call is written were not answered at once (pipelines are):
    // they are connector jobs, run later by the connector executor.
    const newJobs = new Map<string, ScriptWait>();
    const newContinuations = new Map<string, ContinuationWait>();
    const newIncidents = new Map<string, RaisedIncident>();
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
          else if (effect.wait.kind === 'continuation') newContinuations.set(effect.wait.waitId, effect.wait);
          else if (isSubscriptionWait(effect.wait)) newSubscriptions.set(effect.wait.waitId, effect.wait);
          else if (effect.wait.kind === 'send') thrown.push(thrownMessage(effect.wait));
          break;
        case 'waitClosed':
          if (effect.kind === 'message' || effect.kind === 'signal') {
            if (!newSubscriptions.delete(effect.waitId)) this.closedSubscriptions.push(tag(effect.waitId));
          } else if (
            !newExternal.delete(effect.waitId) &&
            !newUser.delete(effect.waitId) &&
            !newTimers.delete(effect.waitId) &&
            !newJobs.delete(effect.waitId) &&
            !newContinuations.delete(effect.waitId) &&
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
        case 'taskAssigned': {
          // A task opened by this same call is inserted with its assignee.
          const opened = newUser.get(effect.waitId);
          if (opened) newUser.set(effect.waitId, { ...opened, assignee: effect.assignee });
          else this.assigned.push(tag({ waitId: effect.waitId, assignee: effect.assignee }));
          break;
        }
        case 'messageThrown':
          thrown.push(thrownMessage(effect));
          break;
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
    for (const wait of newContinuations.values()) this.continuationJobs.push(tag(wait));
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
      continuationJobsCreated: newContinuations.size,
      messageWaits: [...newSubscriptions.values()].filter((w) => w.kind === 'message'),
      thrown,
    };
  }

  /**
   * Adds the gathered writes to `statement`, each kept to instances that pass `guard` (null: all):
   * each table's store file declares its rows, this hands them over, one CTE per table and kind.
   */
  write(statement: StatementBuilder, guard: InstanceGuard | null): void {
    const rows = rowGuard(guard);
    for (const kind of Object.keys(closedTables) as ClosedKind[])
      deleteWaitRows(statement, rows, closedTables[kind], this.closed[kind]);
    insertRows(statement, rows, connectorJobInserts, this.connectorJobs);
    insertRows(statement, rows, continuationJobInserts, this.continuationJobs);
    insertRows(statement, rows, externalTaskInserts, this.externalTasks);
    insertRows(statement, rows, userTaskInserts, this.userTasks);
    assignUserTasks(statement, rows, this.assigned);
    deleteWaitRows(statement, rows, subscriptionWaits, this.closedSubscriptions);
    insertRows(statement, rows, subscriptionInserts, this.openedSubscriptions);
    // Thrown events become outbox rows of this same statement: they exist exactly if the write commits.
    insertRows(statement, rows, outboxInserts, this.thrown);
    insertRows(statement, rows, timerJobInserts, this.timers);
    insertRows(statement, rows, incidentInserts, this.incidents);
    resolveIncidents(statement, rows, this.resolvedIncidents);
    insertRows(statement, rows, historyInserts, this.history);
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

/** A message thrown by a throw event or sent by a send task, as an outbox row with a new id. */
function thrownMessage(source: {
  elementId: string;
  messageName: string;
  correlationKey: string | null;
  variables: Record<string, unknown>;
}): ThrownEvent {
  const { elementId, messageName, correlationKey, variables } = source;
  return { id: randomUUID(), elementId, kind: 'message', messageName, correlationKey, variables };
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
