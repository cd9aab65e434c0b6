import pg from 'pg';
import type { Clock } from '../../../platform/clock.js';
import {
  isDatabaseUnavailable,
  withTransaction,
  type Pool,
  type PoolClient,
} from '../../../platform/database/pool.js';
import type { TaskAnnouncer } from '../../external-tasks/task-notifier.js';
import type { ModelCache } from '../../deployments/model-cache.js';
import type { Effect, EngineEvent, InstanceState, Variables } from '../runtime/index.js';
import { addInstanceCounter, lockInstanceCounters } from '../store/process-keys.js';
import { guardedUpdateRows, newInstanceRows, writeBatch, type PlannedUpdate } from './batch-writer.js';
import { CallActivities } from './call-activities.js';
import { EngineCallError, InstanceContentionError, StaleDefinitionError } from './driver-errors.js';
import { isDefinitionSuspended } from '../store/process-definitions.js';
import type { DrivenInstance, EventCondition, EventHooks } from './driver-types.js';
import { addEffects, type WrittenEffects } from './effects-writer.js';
import type { EngineMetrics } from './engine-metrics.js';
import { GroupCommit, type GroupOutcome } from './group-commit.js';
import type { ImmediateWork } from './immediate-work.js';
import {
  addGuardedUpdate,
  insertInstance,
  readInstance,
  runGuardedUpdate,
  type InstanceRecord,
  type StoredInstance,
} from '../store/process-instances.js';
import { Planner, type PlannedCall, type PlannedStart, type StartDefinition } from './planner.js';
import { RecentInstances } from './recent-instances.js';
import { WriteStatement } from '../store/write-statement.js';

/** What the driver needs. */
export interface InstanceDriverOptions {
  pool: Pool;
  models: ModelCache;
  /** Told, after each write, which topics gained external tasks. */
  announcer: TaskAnnouncer;
  immediate: ImmediateWork;
  clock: Clock;
  metrics: EngineMetrics;
  maxStepsPerCall: number;
  /** Instances one multi-instance body may have (`WORKFLOW_MAX_MULTI_INSTANCE`). */
  maxMultiInstance: number;
  /** Attempts of an event whose write lost a race with another write of the same instance. */
  maxAttempts?: number;
  /** How many committed instances to keep for {@link InstanceDriver.applyToRecent}. */
  recentInstances?: number;
  /** Told after a write that opened continuation jobs (the continuation executor wakes). */
  continuationsDue?: () => void;
}

/** One event of {@link InstanceDriver.applyAll}: `stored` is the instance as the caller read it. */
export interface BatchItem {
  instanceId: string;
  event: EngineEvent;
  /** Read by the caller (null: not found); read again when undefined. */
  stored?: StoredInstance | null;
}

/** What became of a {@link BatchItem}. */
export type BatchOutcome = { ok: true; driven: DrivenInstance } | { ok: false; error: unknown };

/** One event of {@link InstanceDriver.applyToRecent}: `heldTask` must still be locked by its worker. */
export interface RecentItem {
  instanceId: string;
  event: EngineEvent;
  heldTask: { taskId: string; workerId: string };
}

/** One start of {@link InstanceDriver.startTogether}. */
interface QueuedStart {
  definition: StartDefinition;
  variables: Variables;
  businessKey: string | null;
  initiator: string | null;
  latestEnabled: boolean;
}

/** One start of {@link InstanceDriver.startAll}: a version and the start event that fired. */
export interface StartItem {
  definition: StartDefinition;
  startEventId: string;
}

/** What became of a {@link StartItem}. */
export type StartOutcome = BatchOutcome;

/**
 * Runs the pure token engine against stored instances. An engine call reads the instance without a
 * lock, plans the call (the {@link Planner}: the event applied, the work that must happen at once run
 * until every token waits), and writes the new state with all its effects in one statement guarded
 * by the instance's revision. A write that lost a race (another event changed the instance meanwhile)
 * is redone from a fresh read, so concurrent completions of a parallel join fire it exactly once.
 * Calls of many instances at once go through {@link writeBatch}, which falls back to these one-by-one
 * calls. Refusals are {@link EngineCallError}s; `src/workflow/errors.ts` maps them to HTTP.
 */
export class InstanceDriver {
  private events: EventHooks | undefined;
  private readonly planner: Planner;
  private readonly calls: CallActivities;
  private readonly recent: RecentInstances;
  private readonly recentWrites: GroupCommit<RecentItem, DrivenInstance | null>;
  /** Queues of {@link startTogether}, by definition and guard. */
  private readonly startWrites = new Map<string, GroupCommit<QueuedStart, DrivenInstance>>();

  constructor(private readonly options: InstanceDriverOptions) {
    this.planner = new Planner(options);
    this.calls = new CallActivities(this);
    this.recent = new RecentInstances(options.recentInstances);
    this.recentWrites = new GroupCommit((items) => this.writeRecent(items), {
      maxBatch: 100,
      key: (item) => item.instanceId,
      failsQueued: isDatabaseUnavailable,
    });
  }

  /** Installs the message and signal hooks (they drive instances themselves, so they come later). */
  useEventHooks(hooks: EventHooks): void {
    this.events = hooks;
  }

  /**
   * Starts an instance of a definition: one atomic statement writes it and its effects. `startEventId`
   * names a top-level start event other than the none start (a timer start that fired); `db` lets
   * the caller make the start part of its own transaction. With `latestEnabled`, the statement writes
   * nothing unless the definition is still the latest enabled version of its key, and the call
   * throws {@link StaleDefinitionError}.
   */
  async start(
    definition: StartDefinition,
    input: {
      variables: Variables;
      businessKey: string | null;
      /** The email of the user who starts the instance, for `camunda:initiator` (absent: none). */
      initiator?: string | null;
      startEventId?: string;
      latestEnabled?: boolean;
      /** The call activity wait that starts this instance, and how deep the calls go. */
      parent?: { instanceId: string; waitId: string; depth: number };
    },
    db: Pool | PoolClient = this.options.pool,
  ): Promise<DrivenInstance> {
    const planned = await this.planner.planStart(definition, input);
    const { state } = planned.instance;
    const { effects } = planned;
    // The effects' foreign keys are deferred, so they can come before the instance row, whose
    // counter row lock is then held only until the statement commits.
    const statement = new WriteStatement();
    const guard = addInstanceCounter(statement, {
      orgId: definition.org_id,
      processKey: definition.process_key,
      definitionId: definition.id,
      latestEnabled: input.latestEnabled ?? false,
    });
    const written = addEffects(statement, planned.target, effects, input.latestEnabled ? guard : null);
    const depth = input.parent?.depth ?? 0;
    const instance = await this.inTransactionIf(db, planned.callsNeeded, async (client) => {
      const inserted = await insertInstance(client, statement, {
        ...planned.instance,
        businessKey: input.businessKey,
        ...(input.parent === undefined ? {} : { parent: input.parent }),
      });
      if (!inserted) {
        if (await isDefinitionSuspended(client, definition.id))
          throw new EngineCallError('conflict', `The process definition ${definition.id} is suspended`);
        if (input.latestEnabled) throw new StaleDefinitionError(definition.id);
        throw new Error(`process key ${definition.process_key} has no counter row`);
      }
      return this.calls.followUp(inserted, state, effects, client, depth);
    });
    if (!instance) throw new Error('an instance insert returned no row');
    this.remember(db, instance, state, 0);
    this.finish(instance, effects, written, true);
    await this.afterWrite(db, instance, written);
    return { instance, written };
  }

  /**
   * {@link start} of a top-level instance outside any caller's transaction, written together with
   * the starts of the same definition that arrive while one is being written: one statement, one
   * update of the key's counter row and one commit for all of them (see {@link GroupCommit}), so
   * concurrent starts do not queue one commit at a time on that row. Counters stay gap-free and
   * consecutive. A start that calls another process goes through {@link start} on its own.
   */
  startTogether(
    definition: StartDefinition,
    input: {
      variables: Variables;
      businessKey: string | null;
      initiator?: string | null;
      latestEnabled?: boolean;
    },
  ): Promise<DrivenInstance> {
    const latestEnabled = input.latestEnabled ?? false;
    const queueKey = `${definition.id}/${latestEnabled}`;
    let queue = this.startWrites.get(queueKey);
    if (queue === undefined) {
      queue = new GroupCommit((items) => this.writeStarts(items), {
        maxBatch: 100,
        failsQueued: isDatabaseUnavailable,
      });
      this.startWrites.set(queueKey, queue);
    }
    return queue.push({
      definition,
      variables: input.variables,
      businessKey: input.businessKey,
      initiator: input.initiator ?? null,
      latestEnabled,
    });
  }

  /** Writes a batch of {@link startTogether} calls, all of one definition, with one statement. */
  private writeStarts(items: QueuedStart[]): Promise<GroupOutcome<DrivenInstance>[]> {
    const first = items[0];
    const latestEnabled = first?.latestEnabled === true ? first.definition.id : undefined;
    return writeBatch<QueuedStart, PlannedStart, DrivenInstance>(items, {
      db: this.options.pool,
      plan: (item) =>
        this.planner.planStart(item.definition, {
          variables: item.variables,
          businessKey: item.businessKey,
          initiator: item.initiator,
        }),
      rows: newInstanceRows(
        (instance) =>
          latestEnabled === undefined
            ? new Error(`process key ${instance.processKey} has no counter row`)
            : new StaleDefinitionError(latestEnabled),
        latestEnabled === undefined ? {} : { latestEnabled },
      ),
      ...this.startFollowUp(this.options.pool),
      alone: (item) =>
        this.start(item.definition, {
          variables: item.variables,
          businessKey: item.businessKey,
          initiator: item.initiator,
          latestEnabled: item.latestEnabled,
        }),
    });
  }

  /**
   * Starts several top-level instances without variables (timer start events that fired) inside the
   * caller's transaction, with one statement that inserts them with consecutive counters per key and
   * writes all their effects set-wise. A start that calls another process goes through
   * {@link start} on its own. Outcomes are in the items' order; an engine refusal is that item's
   * error only.
   */
  async startAll(items: readonly StartItem[], client: PoolClient): Promise<StartOutcome[]> {
    const outcomes = await writeBatch<StartItem, PlannedStart, DrivenInstance>(items, {
      db: client,
      plan: ({ definition, startEventId }) =>
        this.planner.planStart(definition, { variables: {}, startEventId }),
      before: (planned) =>
        lockInstanceCounters(
          client,
          planned.map((p) => p.instance),
        ),
      rows: newInstanceRows((instance) => new Error(`process key ${instance.processKey} has no counter row`)),
      ...this.startFollowUp(client),
      alone: ({ definition, startEventId }) =>
        this.start(definition, { variables: {}, businessKey: null, startEventId }, client),
    });
    return outcomes.map(asBatchOutcome);
  }

  /** What follows the write of new instances in a batch, on `db`. */
  private startFollowUp(db: Pool | PoolClient) {
    return {
      wrote: (instance: InstanceRecord, planned: PlannedStart, written: WrittenEffects) => {
        this.remember(db, instance, planned.instance.state, 0);
        this.finish(instance, planned.effects, written, true);
      },
      afterWrite: (instance: InstanceRecord, written: WrittenEffects) =>
        this.afterWrite(db, instance, written),
    };
  }

  /** What follows the guarded update of instances in a batch, on `db`. */
  private updateFollowUp(db: Pool | PoolClient) {
    return {
      wrote: (instance: InstanceRecord, planned: PlannedUpdate, written: WrittenEffects) => {
        this.remember(db, instance, planned.state, planned.revision + 1);
        this.finish(instance, planned.effects, written, false);
      },
      afterWrite: (instance: InstanceRecord, written: WrittenEffects) =>
        this.afterWrite(db, instance, written),
    };
  }

  /**
   * Applies an event to an instance. Engine refusals are {@link EngineCallError}s (an API client sees
   * an unknown wait as 404, an ended instance or an inapplicable event as 409, bad variables as 400).
   */
  async apply(
    instanceId: string,
    event: EngineEvent,
    condition?: EventCondition,
    db: Pool | PoolClient = this.options.pool,
    depth = 0,
  ): Promise<DrivenInstance> {
    const attempts = this.options.maxAttempts ?? 20;
    for (let attempt = 1; ; attempt++) {
      const stored =
        attempt === 1 && condition?.initial !== undefined
          ? condition.initial
          : await readInstance(db, instanceId);
      const planned = await this.planner.plan(instanceId, stored, event, condition);
      const driven = await this.write(planned, condition, db, depth);
      if (driven) return driven;
      if (attempt >= attempts) {
        throw new InstanceContentionError();
      }
    }
  }

  /**
   * {@link apply}, unless the call would raise an incident: then nothing is written and the message
   * of the first incident comes back. A continuation job with retries left fails its attempt so
   * (the job is retried later) instead of committing the incident.
   */
  async applyUnlessIncident(
    instanceId: string,
    event: EngineEvent,
    db: Pool | PoolClient,
  ): Promise<DrivenInstance | { incident: string }> {
    const attempts = this.options.maxAttempts ?? 20;
    for (let attempt = 1; ; attempt++) {
      const planned = await this.planner.plan(instanceId, await readInstance(db, instanceId), event);
      const raised = planned.effects.find((effect) => effect.type === 'incidentRaised');
      if (raised !== undefined) return { incident: raised.incident.message };
      const driven = await this.write(planned, undefined, db, 0);
      if (driven) return driven;
      if (attempt >= attempts) throw new InstanceContentionError();
    }
  }

  /**
   * Applies an event to the instance as this process last committed it, without reading the row,
   * if the worker still holds `heldTask`: one attempt, its write guarded by that revision and by the
   * lock. Null when the instance is not held here, when the engine refuses the event on that state,
   * when the event starts or ends a call activity, or when the guard failed (the instance changed,
   * or the lock is gone): the caller then goes the usual way, {@link apply}, which reads the row and
   * reports what is wrong. Calls that arrive while such a write is in flight are written together by
   * the next one, in one statement and one commit (see {@link GroupCommit}).
   */
  applyToRecent(item: RecentItem): Promise<DrivenInstance | null> {
    return this.recentWrites.push(item);
  }

  /** Writes a batch of {@link applyToRecent} calls with one set-wise statement, outside a transaction. */
  private writeRecent(items: RecentItem[]): Promise<GroupOutcome<DrivenInstance | null>[]> {
    return writeBatch<RecentItem, PlannedUpdate, null>(items, {
      db: this.options.pool,
      plan: async (item) => {
        const stored = this.recent.get(item.instanceId);
        if (stored === undefined) return 'alone';
        try {
          return {
            ...(await this.planner.plan(item.instanceId, stored, item.event)),
            heldTask: item.heldTask,
          };
        } catch {
          // Refused on this state: the committed one may differ, so the usual path decides.
          return 'alone';
        }
      },
      rows: guardedUpdateRows,
      ...this.updateFollowUp(this.options.pool),
      // Not written here: the caller goes the usual way, which reports its own error.
      alone: () => Promise.resolve(null),
    });
  }

  /**
   * Writes a planned engine call in one statement guarded by the revision it was planned on. Null
   * when the guard failed and nothing was written.
   */
  private async write(
    planned: PlannedCall,
    condition: Pick<EventCondition, 'sql' | 'before' | 'after'> | undefined,
    db: Pool | PoolClient,
    depth: number,
  ): Promise<DrivenInstance | null> {
    const { state, effects, now } = planned;
    const instanceId = planned.target.instanceId;
    const statement = new WriteStatement();
    condition?.before?.(statement, now);
    const guard = addGuardedUpdate(statement, {
      id: instanceId,
      state,
      now,
      expectedRevision: planned.revision,
      allowSuspended: planned.allowSuspended,
      condition: condition ? condition.sql((value) => statement.param(value), now) : null,
    });
    const written = addEffects(statement, planned.target, effects, guard);
    condition?.after?.(statement, guard);
    const instance = await this.inTransactionIf(db, planned.callsNeeded, async (client) => {
      const updated = await runGuardedUpdate(client, statement);
      return updated && this.calls.followUp(updated, state, effects, client, depth);
    });
    if (!instance) return null;
    this.remember(db, instance, state, planned.revision + 1);
    this.finish(instance, effects, written, false);
    await this.afterWrite(db, instance, written);
    return { instance, written };
  }

  /**
   * Applies one event to each of several distinct instances inside the caller's transaction, writing
   * them all with one statement whose every write is set-wise (the timer executor's batches: one
   * round trip and one CTE per kind of write, instead of a statement per instance). Each item uses
   * the instance as the caller read it; an item whose instance changed since (its revision guard
   * failed) or that starts or ends a call activity goes through {@link apply} on its own. Outcomes
   * are in the items' order: an engine refusal or an instance gone is that item's error only.
   */
  async applyAll(items: readonly BatchItem[], client: PoolClient): Promise<BatchOutcome[]> {
    if (new Set(items.map((item) => item.instanceId)).size !== items.length)
      throw new Error('applyAll needs distinct instances: one statement cannot update a row twice');
    const outcomes = await writeBatch<BatchItem, PlannedUpdate, DrivenInstance>(items, {
      db: client,
      plan: async (item) => {
        const stored = item.stored === undefined ? await readInstance(client, item.instanceId) : item.stored;
        return this.planner.plan(item.instanceId, stored, item.event);
      },
      rows: guardedUpdateRows,
      ...this.updateFollowUp(client),
      alone: (item) => this.apply(item.instanceId, item.event, undefined, client),
    });
    return outcomes.map(asBatchOutcome);
  }

  /**
   * Runs `work` in a transaction when `needed` and `db` is the pool (a call activity's child start or
   * parent update must commit with the write that caused it); otherwise on `db` as it is (a single
   * statement, or the caller's transaction).
   */
  private async inTransactionIf<T>(
    db: Pool | PoolClient,
    needed: boolean,
    work: (db: Pool | PoolClient) => Promise<T>,
  ): Promise<T> {
    if (!needed || !(db instanceof pg.Pool)) return work(db);
    return withTransaction(db, work);
  }

  /**
   * Keeps a write for {@link applyToRecent} when it is committed: `db` is the pool (a single
   * statement, or the driver's own transaction, both committed by now). A write inside a caller's
   * transaction is forgotten instead: it may still roll back.
   */
  private remember(db: Pool | PoolClient, instance: InstanceRecord, state: InstanceState, revision: number) {
    if (db instanceof pg.Pool) this.recent.remember({ record: instance, engineState: state, revision });
    else this.recent.forget(instance.id);
  }

  /**
   * Runs the message and signal hooks of a write made outside the driver (a migration): new message
   * waits are offered the buffered messages they match, thrown events are delivered.
   */
  announceWrite(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects): Promise<void> {
    return this.afterWrite(db, instance, written);
  }

  /** Runs the message and signal hooks of a write (processes without such elements skip both). */
  private async afterWrite(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects) {
    const hooks = this.events;
    if (hooks === undefined) return;
    if (written.messageWaits.length > 0) await hooks.messageWaitsOpened(db, instance, written);
    if (written.thrown.length > 0) await hooks.thrown(db, instance, written);
  }

  /** After a successful write: wake long polls for new tasks and count what happened. */
  private finish(
    instance: InstanceRecord,
    effects: readonly Effect[],
    written: WrittenEffects,
    started: boolean,
  ): void {
    if (written.topics.size > 0) this.options.announcer.announce(written.topics);
    if (written.continuationJobsCreated > 0) this.options.continuationsDue?.();
    const { metrics } = this.options;
    if (started) metrics.instance(instance.process_key, 'started');
    metrics.job('external_task', 'created', written.externalTasksCreated);
    metrics.job('user_task', 'created', written.userTasksCreated);
    if (written.incidentsRaised > 0) metrics.instance(instance.process_key, 'incident');
    for (const effect of effects) {
      if (effect.type === 'instanceEnded') {
        metrics.instance(instance.process_key, effect.status);
        const seconds = (Date.parse(instance.ended_at ?? '') - Date.parse(instance.started_at)) / 1000;
        if (Number.isFinite(seconds)) metrics.finished(instance.process_key, effect.status, seconds);
      }
    }
  }
}

function asBatchOutcome(outcome: GroupOutcome<DrivenInstance>): BatchOutcome {
  return outcome.ok ? { ok: true, driven: outcome.value } : outcome;
}
