import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { TaskAnnouncer } from '../../external-tasks/task-notifier.js';
import { WorkflowErrors } from '../../errors.js';
import type { ModelCache } from '../../deployments/model-cache.js';
import type { ProcessModel } from '../model/index.js';
import {
  applyEvent,
  startInstance,
  type Effect,
  type EngineContext,
  type EngineError,
  type EngineEvent,
  type EngineResult,
  type InstanceState,
  type Variables,
} from '../runtime/index.js';
import { addEffects, type WrittenEffects } from './effects-writer.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { ImmediateWork } from './immediate-work.js';
import {
  addGuardedUpdate,
  insertInstance,
  isEnded,
  readInstance,
  runGuardedUpdate,
  type InstanceRecord,
  type StoredInstance,
} from './instance-repository.js';
import { WriteStatement } from './write-statement.js';

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
  /** Attempts of an event whose write lost a race with another write of the same instance. */
  maxAttempts?: number;
}

/** Outcome of a driven call: the instance as written. */
export interface DrivenInstance {
  instance: InstanceRecord;
  written: WrittenEffects;
}

/**
 * A precondition of an event besides the instance being unchanged: checked on the state read
 * (`check`, throwing an API error) and again, atomically, by the write (`sql`, e.g. "the worker still
 * holds the task"). `sql` receives a function that turns a value into a statement parameter.
 */
export interface EventCondition {
  check(stored: StoredInstance, now: Date): Promise<void>;
  sql(param: (value: unknown) => string, now: Date): string;
}

/**
 * Runs the pure token engine against stored instances. An engine call reads the instance without a
 * lock, applies the event, runs the work that must happen at once (scripts, decisions) until every
 * token waits, and writes the new state with all its effects in one statement guarded by the
 * instance's revision. A write that lost a race (another event changed the instance meanwhile) is
 * redone from a fresh read, so concurrent completions of a parallel join fire it exactly once.
 */
export class InstanceDriver {
  constructor(private readonly options: InstanceDriverOptions) {}

  /** Starts an instance of a definition: one atomic statement writes it and its effects. */
  async start(
    definition: { id: string; org_id: string; process_key: string },
    input: { variables: Variables; businessKey: string | null },
  ): Promise<DrivenInstance> {
    const model = await this.options.models.get(definition.id);
    const ctx = this.context();
    const instanceId = randomUUID();
    const owner = { orgId: definition.org_id, instanceId };
    const first = this.unwrap(startInstance(model, { variables: input.variables }, ctx));
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    // The effects' foreign keys are deferred, so they can come before the instance row, whose
    // counter row lock is then held only until the statement commits.
    const statement = new WriteStatement();
    const written = addEffects(statement, { ...owner, now: ctx.now.toISOString(), guard: null }, effects);
    const instance = await insertInstance(this.options.pool, statement, {
      id: instanceId,
      orgId: definition.org_id,
      definitionId: definition.id,
      processKey: definition.process_key,
      businessKey: input.businessKey,
      state,
      now: ctx.now,
    });
    this.finish(instance, effects, written, true);
    return { instance, written };
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
  ): Promise<DrivenInstance> {
    const attempts = this.options.maxAttempts ?? 20;
    for (let attempt = 1; ; attempt++) {
      const stored = await readInstance(db, instanceId);
      if (!stored) throw WorkflowErrors.notFound('No such process instance');
      if (isEnded(stored.record.state))
        throw WorkflowErrors.conflict(`The process instance is ${stored.record.state}`);
      const ctx = this.context();
      await condition?.check(stored, ctx.now);
      const model = await this.options.models.get(stored.record.definition_id);
      const owner = { orgId: stored.record.org_id, instanceId };
      const first = this.unwrap(applyEvent(model, stored.engineState, event, ctx));
      const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
      const statement = new WriteStatement();
      const guard = addGuardedUpdate(statement, {
        id: instanceId,
        state,
        now: ctx.now,
        expectedRevision: stored.revision,
        condition: condition ? condition.sql((value) => statement.param(value), ctx.now) : null,
      });
      const written = addEffects(statement, { ...owner, now: ctx.now.toISOString(), guard }, effects);
      const instance = await runGuardedUpdate(db, statement);
      if (instance) {
        this.finish(instance, effects, written, false);
        return { instance, written };
      }
      if (attempt >= attempts) {
        throw WorkflowErrors.conflict('The process instance is changing too often; try again');
      }
    }
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
      if (!next) return { state, effects };
      attempted.add(next.waitId);
      const outcome = await this.options.immediate.run(next, owner);
      if (outcome === null) continue;
      for (const entry of outcome.history ?? []) effects.push({ type: 'history', entry });
      const result = applyEvent(model, state, outcome.event, ctx);
      if (!result.ok) throw new Error(`the engine refused an immediate answer: ${result.error.message}`);
      state = result.state;
      effects.push(...result.effects);
    }
  }

  private context(): EngineContext {
    return {
      now: this.options.clock.now(),
      newId: randomUUID,
      maxStepsPerCall: this.options.maxStepsPerCall,
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
