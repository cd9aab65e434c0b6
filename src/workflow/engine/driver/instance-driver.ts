import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Clock } from '../../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../../platform/database/pool.js';
import type { TaskAnnouncer } from '../../external-tasks/task-notifier.js';
import { ServiceError } from '../../../platform/http/service-error.js';
import { WorkflowErrors } from '../../errors.js';
import type { ModelCache } from '../../deployments/model-cache.js';
import type { ProcessModel } from '../model/index.js';
import {
  applyEventPausing,
  startInstancePausing,
  type Effect,
  type EngineContext,
  type EngineError,
  type EngineEvent,
  type EngineResult,
  type InstanceState,
  type Variables,
} from '../runtime/index.js';
import { CallActivities } from './call-activities.js';
import { addEffects, EffectWrites, type WrittenEffects } from './effects-writer.js';
import type { EffectTarget } from '../store/tagged-rows.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { ImmediateWork } from './immediate-work.js';
import { addInstanceCounter, lockInstanceCounters } from '../store/process-keys.js';
import {
  addGuardedUpdate,
  addGuardedUpdates,
  addNewInstances,
  insertInstance,
  isEnded,
  readInstance,
  runGuardedUpdate,
  runGuardedUpdates,
  runNewInstances,
  type InstanceRecord,
  type NewInstance,
  type StoredInstance,
} from '../store/process-instances.js';
import { GroupCommit, type GroupOutcome } from './group-commit.js';
import { RecentInstances } from './recent-instances.js';
import { WriteStatement, type StatementBuilder } from '../store/write-statement.js';
import { yieldToEventLoop } from '../../../platform/yield-to-event-loop.js';

/** Effects of an engine call above which the driver pauses before building its write. */
const LARGE_CALL_EFFECTS = 1000;

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
}

/** Outcome of a driven call: the instance as written. */
export interface DrivenInstance {
  instance: InstanceRecord;
  written: WrittenEffects;
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

/** A new instance as written, with what its effects wrote. */
interface InsertedInstance {
  record: InstanceRecord;
  written: WrittenEffects;
}

/** One start of {@link InstanceDriver.startTogether}. */
interface QueuedStart {
  definition: { id: string; org_id: string; process_key: string };
  variables: Variables;
  businessKey: string | null;
  latestEnabled: boolean;
}

/** One start of {@link InstanceDriver.startAll}: a version and the start event that fired. */
export interface StartItem {
  definition: { id: string; org_id: string; process_key: string };
  startEventId: string;
}

/** What became of a {@link StartItem}. */
export type StartOutcome = BatchOutcome;

/** An engine call computed, not yet written. */
interface Planned {
  state: InstanceState;
  effects: Effect[];
  now: Date;
  /** The revision the instance was read at: its write's guard. */
  revision: number;
  target: EffectTarget;
  /** A call activity starts or ends: the write needs the follow-up of CallActivities. */
  callsNeeded: boolean;
}

/**
 * A precondition of an event besides the instance being unchanged: checked on the state read
 * (`check`, throwing an API error) and again, atomically, by the write (`sql`, e.g. "the worker still
 * holds the task"). `sql` receives a function that turns a value into a statement parameter.
 */
export interface EventCondition {
  /** The instance as read together with the condition's own data: the first attempt uses it. */
  initial?: StoredInstance | null;
  check(stored: StoredInstance, now: Date): Promise<void>;
  sql(param: (value: unknown) => string, now: Date): string;
  /** CTEs the condition's SQL reads, added before the guarded update (e.g. a row locked to claim). */
  before?(statement: StatementBuilder, now: Date): void;
  /** Writes that belong to the event, added after the effects; `guard` is the update's success. */
  after?(statement: StatementBuilder, guard: string): void;
}

/**
 * What happens around messages and signals after an engine call's write: buffered messages are
 * offered to the message waits it opened, and the outbox rows of what it threw are delivered to
 * other instances. `db` is where the call wrote: the pool (committed) or the caller's transaction.
 */
export interface EventHooks {
  messageWaitsOpened(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects): Promise<void>;
  thrown(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects): Promise<void>;
}

/**
 * Runs the pure token engine against stored instances. An engine call reads the instance without a
 * lock, applies the event, runs the work that must happen at once (scripts, decisions) until every
 * token waits, and writes the new state with all its effects in one statement guarded by the
 * instance's revision. A write that lost a race (another event changed the instance meanwhile) is
 * redone from a fresh read, so concurrent completions of a parallel join fire it exactly once.
 */
export class InstanceDriver {
  private events: EventHooks | undefined;
  private readonly calls: CallActivities;
  private readonly recent: RecentInstances;
  private readonly recentWrites: GroupCommit<RecentItem, DrivenInstance | null>;
  /** Queues of {@link startTogether}, by definition and guard. */
  private readonly startWrites = new Map<string, GroupCommit<QueuedStart, DrivenInstance>>();

  constructor(private readonly options: InstanceDriverOptions) {
    this.calls = new CallActivities(this);
    this.recent = new RecentInstances(options.recentInstances);
    this.recentWrites = new GroupCommit((items) => this.writeRecent(items), {
      maxBatch: 100,
      key: (item) => item.instanceId,
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
    definition: { id: string; org_id: string; process_key: string },
    input: {
      variables: Variables;
      businessKey: string | null;
      startEventId?: string;
      latestEnabled?: boolean;
      /** The call activity wait that starts this instance, and how deep the calls go. */
      parent?: { instanceId: string; waitId: string; depth: number };
    },
    db: Pool | PoolClient = this.options.pool,
  ): Promise<DrivenInstance> {
    const model = await this.options.models.get(definition.id);
    const ctx = this.context();
    const instanceId = randomUUID();
    const owner = { orgId: definition.org_id, instanceId };
    const startInput = {
      variables: input.variables,
      ...(input.startEventId === undefined ? {} : { startEventId: input.startEventId }),
      ...(input.parent === undefined ? {} : { calledByParent: true }),
    };
    const first = this.unwrap(await startInstancePausing(model, startInput, ctx, yieldToEventLoop));
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    // The effects' foreign keys are deferred, so they can come before the instance row, whose
    // counter row lock is then held only until the statement commits.
    const statement = new WriteStatement();
    const guard = addInstanceCounter(statement, {
      orgId: definition.org_id,
      processKey: definition.process_key,
      definitionId: definition.id,
      latestEnabled: input.latestEnabled ?? false,
    });
    const target = { ...owner, processKey: definition.process_key, now: ctx.now.toISOString() };
    const written = addEffects(statement, target, effects, input.latestEnabled ? guard : null);
    const depth = input.parent?.depth ?? 0;
    const instance = await this.inTransactionIf(
      db,
      this.calls.needed(state, effects, input.parent ?? null),
      async (client) => {
        const inserted = await insertInstance(client, statement, {
          id: instanceId,
          orgId: definition.org_id,
          definitionId: definition.id,
          processKey: definition.process_key,
          businessKey: input.businessKey,
          state,
          now: ctx.now,
          ...(input.parent === undefined ? {} : { parent: input.parent }),
        });
        if (!inserted) {
          if (input.latestEnabled) throw new StaleDefinitionError(definition.id);
          throw new Error(`process key ${definition.process_key} has no counter row`);
        }
        return this.calls.followUp(inserted, state, effects, client, depth);
      },
    );
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
    definition: { id: string; org_id: string; process_key: string },
    input: { variables: Variables; businessKey: string | null; latestEnabled?: boolean },
  ): Promise<DrivenInstance> {
    const latestEnabled = input.latestEnabled ?? false;
    const queueKey = `${definition.id}/${latestEnabled}`;
    let queue = this.startWrites.get(queueKey);
    if (queue === undefined) {
      queue = new GroupCommit((items) => this.writeStarts(items), { maxBatch: 100 });
      this.startWrites.set(queueKey, queue);
    }
    return queue.push({
      definition,
      variables: input.variables,
      businessKey: input.businessKey,
      latestEnabled,
    });
  }

  /** Writes a batch of {@link startTogether} calls, all of one definition, with one statement. */
  private async writeStarts(items: QueuedStart[]): Promise<GroupOutcome<DrivenInstance>[]> {
    const outcomes: GroupOutcome<DrivenInstance>[] = items.map(() => ({
      ok: false,
      error: new Error('a start of a batch was not written'),
    }));
    const batched: { index: number; instance: NewInstance; effects: Effect[] }[] = [];
    const onTheirOwn: number[] = [];
    for (const [index, item] of items.entries()) {
      try {
        const planned = await this.planStart(item.definition, {
          variables: item.variables,
          businessKey: item.businessKey,
        });
        if (planned.callsNeeded) onTheirOwn.push(index);
        else batched.push({ index, ...planned });
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
    const first = items[0];
    if (batched.length > 0 && first !== undefined) {
      const { pool } = this.options;
      let inserted: Map<string, InsertedInstance> | undefined;
      try {
        inserted = await this.insertStarted(
          pool,
          batched,
          first.latestEnabled ? { latestEnabled: first.definition.id } : {},
        );
      } catch {
        // Nothing was written: each start goes on its own, which reports its own error.
        onTheirOwn.push(...batched.map((b) => b.index));
      }
      for (const { index, instance, effects } of batched) {
        if (inserted === undefined) break;
        const { record, written: effectsWritten } = inserted.get(instance.id) ?? {};
        if (record === undefined || effectsWritten === undefined) {
          const error = first.latestEnabled
            ? new StaleDefinitionError(first.definition.id)
            : new Error(`process key ${instance.processKey} has no counter row`);
          outcomes[index] = { ok: false, error };
          continue;
        }
        this.remember(pool, record, instance.state, 0);
        this.finish(record, effects, effectsWritten, true);
        try {
          await this.afterWrite(pool, record, effectsWritten);
          outcomes[index] = { ok: true, value: { instance: record, written: effectsWritten } };
        } catch (error) {
          outcomes[index] = { ok: false, error };
        }
      }
    }
    for (const index of onTheirOwn.sort((a, b) => a - b)) {
      const item = items[index] as QueuedStart;
      const outcome = await outcomeOf(() =>
        this.start(item.definition, {
          variables: item.variables,
          businessKey: item.businessKey,
          latestEnabled: item.latestEnabled,
        }),
      );
      outcomes[index] = outcome.ok ? { ok: true, value: outcome.driven } : outcome;
    }
    return outcomes;
  }

  /**
   * Starts several top-level instances without variables (timer start events that fired) inside the
   * caller's transaction, with one statement that inserts them with consecutive counters per key and
   * writes all their effects set-wise. A start that calls another process goes through
   * {@link start} on its own. Outcomes are in the items' order; an engine refusal is that item's
   * error only.
   */
  async startAll(items: readonly StartItem[], client: PoolClient): Promise<StartOutcome[]> {
    const outcomes: StartOutcome[] = items.map(() => ({ ok: false, error: undefined }));
    const batched: { index: number; instance: NewInstance; effects: Effect[] }[] = [];
    const onTheirOwn: number[] = [];
    for (const [index, { definition, startEventId }] of items.entries()) {
      try {
        const planned = await this.planStart(definition, { variables: {}, startEventId });
        if (planned.callsNeeded) onTheirOwn.push(index);
        else batched.push({ index, ...planned });
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
    if (batched.length > 0) {
      await lockInstanceCounters(
        client,
        batched.map((b) => b.instance),
      );
      const inserted = await this.insertStarted(client, batched);
      for (const { index, instance, effects } of batched) {
        const { record, written } = inserted.get(instance.id) ?? {};
        if (record === undefined || written === undefined) {
          outcomes[index] = {
            ok: false,
            error: new Error(`process key ${instance.processKey} has no counter row`),
          };
          continue;
        }
        this.finish(record, effects, written, true);
        await this.afterWrite(client, record, written);
        outcomes[index] = { ok: true, driven: { instance: record, written } };
      }
    }
    for (const index of onTheirOwn) {
      const { definition, startEventId } = items[index] as StartItem;
      outcomes[index] = await outcomeOf(() =>
        this.start(definition, { variables: {}, businessKey: null, startEventId }, client),
      );
    }
    return outcomes;
  }

  /**
   * Runs the start of a new top-level instance until every token waits (immediate work included);
   * writes nothing. Throws the API error of an engine refusal.
   */
  private async planStart(
    definition: { id: string; org_id: string; process_key: string },
    input: { variables: Variables; businessKey?: string | null; startEventId?: string },
  ): Promise<{ instance: NewInstance; effects: Effect[]; callsNeeded: boolean }> {
    const model = await this.options.models.get(definition.id);
    const ctx = this.context();
    const id = randomUUID();
    const owner = { orgId: definition.org_id, instanceId: id };
    const startInput = {
      variables: input.variables,
      ...(input.startEventId === undefined ? {} : { startEventId: input.startEventId }),
    };
    const first = this.unwrap(await startInstancePausing(model, startInput, ctx, yieldToEventLoop));
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    const instance: NewInstance = {
      id,
      orgId: definition.org_id,
      definitionId: definition.id,
      processKey: definition.process_key,
      businessKey: input.businessKey ?? null,
      state,
      now: ctx.now,
    };
    return { instance, effects, callsNeeded: this.calls.needed(state, effects, null) };
  }

  /**
   * Inserts planned new instances and all their effects with one statement (see
   * {@link addNewInstances}); by instance id, those inserted with what they wrote.
   */
  private async insertStarted(
    db: Pool | PoolClient,
    planned: readonly { instance: NewInstance; effects: Effect[] }[],
    options: { latestEnabled?: string } = {},
  ): Promise<Map<string, InsertedInstance>> {
    const statement = new WriteStatement();
    const guard = addNewInstances(
      statement,
      planned.map((p) => p.instance),
      options,
    );
    const writes = new EffectWrites();
    const written = planned.map(({ instance, effects }) =>
      writes.add(
        {
          instanceId: instance.id,
          orgId: instance.orgId,
          processKey: instance.processKey,
          now: instance.now.toISOString(),
        },
        effects,
      ),
    );
    writes.write(statement, guard);
    const records = await runNewInstances(db, statement);
    const inserted = new Map<string, InsertedInstance>();
    for (const [i, { instance }] of planned.entries()) {
      const record = records.get(instance.id);
      if (record !== undefined) inserted.set(instance.id, { record, written: written[i] as WrittenEffects });
    }
    return inserted;
  }

  /**
   * Applies an event to an instance. Engine refusals become API errors: an unknown wait 404, an
   * ended instance or an inapplicable event 409, bad variables 400.
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
      const planned = await this.plan(instanceId, stored, event, condition);
      const driven = await this.write(planned, condition, db, depth);
      if (driven) return driven;
      if (attempt >= attempts) {
        throw new InstanceContentionError();
      }
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
  private async writeRecent(items: RecentItem[]): Promise<GroupOutcome<DrivenInstance | null>[]> {
    const outcomes: GroupOutcome<DrivenInstance | null>[] = items.map(() => ({ ok: true, value: null }));
    const batched: { index: number; planned: Planned }[] = [];
    for (const [index, item] of items.entries()) {
      const stored = this.recent.get(item.instanceId);
      if (stored === undefined) continue;
      try {
        const planned = await this.plan(item.instanceId, stored, item.event);
        if (!planned.callsNeeded) batched.push({ index, planned });
      } catch {
        // Refused on this state: the committed one may differ, so the usual path decides.
      }
    }
    if (batched.length === 0) return outcomes;
    const statement = new WriteStatement();
    const guard = addGuardedUpdates(
      statement,
      batched.map(({ index, planned }) => ({
        id: planned.target.instanceId,
        state: planned.state,
        now: planned.now,
        expectedRevision: planned.revision,
        heldTask: (items[index] as RecentItem).heldTask,
      })),
    );
    const writes = new EffectWrites();
    const written = batched.map(({ planned }) => writes.add(planned.target, planned.effects));
    writes.write(statement, guard);
    const { pool } = this.options;
    let updated: Map<string, InstanceRecord>;
    try {
      updated = await runGuardedUpdates(pool, statement);
    } catch {
      // Nothing was written: each call goes the usual way, which reports its own error.
      return outcomes;
    }
    for (const [i, { index, planned }] of batched.entries()) {
      const instance = updated.get(planned.target.instanceId);
      if (instance === undefined) continue;
      const effects = written[i] as WrittenEffects;
      this.remember(pool, instance, planned.state, planned.revision + 1);
      this.finish(instance, planned.effects, effects, false);
      try {
        await this.afterWrite(pool, instance, effects);
        outcomes[index] = { ok: true, value: { instance, written: effects } };
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
    return outcomes;
  }

  /**
   * Writes a planned engine call in one statement guarded by the revision it was planned on. Null
   * when the guard failed and nothing was written.
   */
  private async write(
    planned: Planned,
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
    const outcomes: BatchOutcome[] = items.map(() => ({ ok: false, error: undefined }));
    const batched: { index: number; planned: Planned }[] = [];
    const onTheirOwn: number[] = [];
    for (const [index, item] of items.entries()) {
      try {
        const stored = item.stored === undefined ? await readInstance(client, item.instanceId) : item.stored;
        const planned = await this.plan(item.instanceId, stored, item.event);
        if (planned.callsNeeded) onTheirOwn.push(index);
        else batched.push({ index, planned });
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
    if (batched.length > 0) {
      const statement = new WriteStatement();
      const guard = addGuardedUpdates(
        statement,
        batched.map(({ planned }) => ({
          id: planned.target.instanceId,
          state: planned.state,
          now: planned.now,
          expectedRevision: planned.revision,
        })),
      );
      const writes = new EffectWrites();
      const written = batched.map(({ planned }) => writes.add(planned.target, planned.effects));
      writes.write(statement, guard);
      const updated = await runGuardedUpdates(client, statement);
      for (const [i, { index, planned }] of batched.entries()) {
        const instance = updated.get(planned.target.instanceId);
        const effects = written[i] as WrittenEffects;
        if (instance === undefined) {
          onTheirOwn.push(index);
          continue;
        }
        this.recent.forget(instance.id);
        this.finish(instance, planned.effects, effects, false);
        await this.afterWrite(client, instance, effects);
        outcomes[index] = { ok: true, driven: { instance, written: effects } };
      }
    }
    for (const index of onTheirOwn.sort((a, b) => a - b)) {
      const item = items[index] as BatchItem;
      outcomes[index] = await outcomeOf(() => this.apply(item.instanceId, item.event, undefined, client));
    }
    return outcomes;
  }

  /**
   * One engine call on an instance as read: applies the event and runs the immediate work. Throws
   * the API error of an engine refusal; writes nothing.
   */
  private async plan(
    instanceId: string,
    stored: StoredInstance | null,
    event: EngineEvent,
    condition?: EventCondition,
  ): Promise<Planned> {
    if (!stored) throw WorkflowErrors.notFound('No such process instance');
    if (isEnded(stored.record.state))
      throw WorkflowErrors.conflict(`The process instance is ${stored.record.state}`);
    const ctx = this.context();
    await condition?.check(stored, ctx.now);
    const model = await this.options.models.get(stored.record.definition_id);
    const owner = { orgId: stored.record.org_id, instanceId };
    const first = this.unwrap(
      await applyEventPausing(model, stored.engineState, event, ctx, yieldToEventLoop),
    );
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    const parent =
      stored.record.parent_instance_id === null ? null : { instanceId: stored.record.parent_instance_id };
    return {
      state,
      effects,
      now: ctx.now,
      revision: stored.revision,
      target: { ...owner, processKey: stored.record.process_key, now: ctx.now.toISOString() },
      callsNeeded: this.calls.needed(state, effects, parent),
    };
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

  /** Runs immediate waits (scripts, decisions) opened by the engine until none is left. */
  private async drain(
    model: ProcessModel,
    initialState: InstanceState,
    initialEffects: Effect[],
    owner: { orgId: string; instanceId: string },
    ctx: EngineContext,
  ): Promise<{ state: InstanceState; effects: Effect[] }> {
    let state = initialState;
    const effects = [...initialEffects];
    const attempted = new Set<string>();
    for (;;) {
      const next = Object.values(state.waits).find(
        (wait) => !attempted.has(wait.waitId) && this.options.immediate.handles(wait),
      );
      if (!next) {
        // A call with many effects (a large multi-instance body) has kept the event loop busy; the
        // write's statement is built next, so others get a turn in between.
        if (effects.length > LARGE_CALL_EFFECTS) await yieldToEventLoop();
        return { state, effects };
      }
      attempted.add(next.waitId);
      const outcome = await this.options.immediate.run(next, owner);
      if (outcome === null) continue;
      for (const entry of outcome.history ?? []) effects.push({ type: 'history', entry });
      const result = await applyEventPausing(model, state, outcome.event, ctx, yieldToEventLoop);
      if (!result.ok) throw new Error(`the engine refused an immediate answer: ${result.error.message}`);
      state = result.state;
      effects.push(...result.effects);
    }
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

  /** Runs the message and signal hooks of a write (processes without such elements skip both). */
  private async afterWrite(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects) {
    const hooks = this.events;
    if (hooks === undefined) return;
    if (written.messageWaits.length > 0) await hooks.messageWaitsOpened(db, instance, written);
    if (written.thrown.length > 0) await hooks.thrown(db, instance, written);
  }

  private context(): EngineContext {
    return {
      now: this.options.clock.now(),
      newId: randomUUID,
      maxStepsPerCall: this.options.maxStepsPerCall,
      maxMultiInstance: this.options.maxMultiInstance,
    };
  }

  private unwrap(result: EngineResult): { state: InstanceState; effects: Effect[] } {
    if (result.ok) return result;
    throw engineErrorToApi(result.error);
  }

  /** After a successful write: wake long polls for new tasks and count what happened. */
  private finish(
    instance: InstanceRecord,
    effects: readonly Effect[],
    written: WrittenEffects,
    started: boolean,
  ): void {
    if (written.topics.size > 0) this.options.announcer.announce(written.topics);
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

/**
 * An event whose write lost the race for its instance `maxAttempts` times in a row: a 409 to an API
 * client, but not "nothing left to do" for a timer, which must try again.
 */
export class InstanceContentionError extends ServiceError {
  constructor() {
    super(409, 'U409', 'The process instance is changing too often; try again');
  }
}

/** A start by key found that its definition is no longer the latest enabled version: nothing was written. */
export class StaleDefinitionError extends Error {
  constructor(readonly definitionId: string) {
    super(`definition ${definitionId} is no longer the latest enabled version of its key`);
  }
}

/** The outcome of one item of a batch driven on its own: its instance, or the error it threw. */
async function outcomeOf(drive: () => Promise<DrivenInstance>): Promise<BatchOutcome> {
  try {
    return { ok: true, driven: await drive() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Maps an engine refusal to the API error a client sees. */
export function engineErrorToApi(error: EngineError) {
  switch (error.code) {
    case 'waitNotFound':
    case 'incidentNotFound':
      return WorkflowErrors.notFound(error.message);
    case 'invalidVariables':
    case 'noStartEvent':
      return WorkflowErrors.validation(error.message);
    case 'instanceEnded':
    case 'notApplicable':
      return WorkflowErrors.conflict(error.message);
  }
}
