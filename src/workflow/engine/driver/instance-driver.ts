import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../../platform/database/pool.js';
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
import { writeEffects, type WrittenEffects } from './effects-writer.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { ImmediateWork } from './immediate-work.js';
import {
  insertInstance,
  isEnded,
  lockInstance,
  updateInstanceState,
  type InstanceRecord,
} from './instance-repository.js';

/** What the driver needs. */
export interface InstanceDriverOptions {
  pool: Pool;
  models: ModelCache;
  /** Told, after commit, which topics gained external tasks. */
  announcer: TaskAnnouncer;
  immediate: ImmediateWork;
  clock: Clock;
  metrics: EngineMetrics;
  maxStepsPerCall: number;
}

/** Outcome of a driven call: the instance after commit, and the topics to wake. */
export interface DrivenInstance {
  instance: InstanceRecord;
  written: WrittenEffects;
}

/**
 * Runs the pure token engine against stored instances: loads the model, applies the event, runs
 * the work that must happen at once (scripts, decisions) until every token waits, and persists the
 * new state with its effects in the caller's transaction.
 */
export class InstanceDriver {
  private readonly topicsByTransaction = new WeakMap<PoolClient, Set<string>>();

  constructor(private readonly options: InstanceDriverOptions) {}

  /**
   * Runs `work` in one transaction; after it commits, announces the topics that gained external
   * tasks in it, so long-polling workers wake only for committed work.
   */
  async inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let topics: Set<string> | undefined;
    const result = await withTransaction(this.options.pool, (client) => {
      topics = new Set();
      this.topicsByTransaction.set(client, topics);
      return work(client);
    });
    if (topics && topics.size > 0) this.options.announcer.announce(topics);
    return result;
  }

  /** Starts an instance of a definition inside `client`'s transaction. */
  async start(
    client: PoolClient,
    definition: { id: string; org_id: string; process_key: string },
    input: { variables: Variables; businessKey: string | null },
  ): Promise<DrivenInstance> {
    const model = await this.options.models.get(definition.id);
    const ctx = this.context();
    const instanceId = randomUUID();
    const owner = { orgId: definition.org_id, instanceId };
    const first = this.unwrap(startInstance(model, { variables: input.variables }, ctx));
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    // Effects first (their foreign keys are deferred): the instance insert takes the key's counter
    // row lock, and being the last statement it holds that lock only until commit.
    const written = await this.write(client, { ...owner, now: ctx.now.toISOString() }, effects);
    const instance = await insertInstance(client, {
      id: instanceId,
      orgId: definition.org_id,
      definitionId: definition.id,
      processKey: definition.process_key,
      businessKey: input.businessKey,
      state,
      now: ctx.now,
    });
    this.count(instance, effects, written, true);
    return { instance, written };
  }

  /**
   * Applies an event to a locked instance. Engine refusals become API errors: an unknown wait 404,
   * an ended instance or an inapplicable event 409, bad variables 400.
   */
  async apply(
    client: PoolClient,
    instanceId: string,
    event: EngineEvent,
    options: { afterLock?: () => Promise<void> } = {},
  ): Promise<DrivenInstance> {
    const locked = await lockInstance(client, instanceId);
    if (!locked) throw WorkflowErrors.notFound('No such process instance');
    await options.afterLock?.();
    if (isEnded(locked.record.state))
      throw WorkflowErrors.conflict(`The process instance is ${locked.record.state}`);
    const model = await this.options.models.get(locked.record.definition_id);
    const ctx = this.context();
    const owner = { orgId: locked.record.org_id, instanceId };
    const first = this.unwrap(applyEvent(model, locked.engineState, event, ctx));
    const { state, effects } = await this.drain(model, first.state, first.effects, owner, ctx);
    const instance = await updateInstanceState(client, instanceId, state, ctx.now);
    const written = await this.write(client, { ...owner, now: ctx.now.toISOString() }, effects);
    this.count(instance, effects, written, false);
    return { instance, written };
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

  private async write(client: PoolClient, target: Parameters<typeof writeEffects>[1], effects: Effect[]) {
    const written = await writeEffects(client, target, effects);
    const topics = this.topicsByTransaction.get(client);
    for (const topic of written.topics) topics?.add(topic);
    return written;
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

  private count(
    instance: InstanceRecord,
    effects: readonly Effect[],
    written: WrittenEffects,
    started: boolean,
  ): void {
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
