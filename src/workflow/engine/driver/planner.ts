import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { ModelCache } from '../../deployments/model-cache.js';
import type { ProcessModel } from '../model/index.js';
import {
  applyEventPausing,
  startInstancePausing,
  type Effect,
  type EngineContext,
  type EngineEvent,
  type EngineResult,
  type InstanceFacts,
  type InstanceState,
  type Variables,
} from '../runtime/index.js';
import type { NewInstance } from '../store/process-instances.js';
import { needsCallActivityWork } from './call-activities.js';
import { EngineCallError, InstanceSuspendedError, refusalError } from './driver-errors.js';
import type { EventCondition } from './driver-types.js';
import type { EffectTarget } from '../store/tagged-rows.js';
import type { ImmediateWork, WaitOwner } from './immediate-work.js';
import { isEnded, type StoredInstance } from '../store/process-instances.js';
import { yieldToEventLoop } from '../../../platform/yield-to-event-loop.js';

/** Effects of an engine call above which the planner pauses before the write is built. */
const LARGE_CALL_EFFECTS = 1000;

/** What the planner needs. */
export interface PlannerOptions {
  models: ModelCache;
  immediate: ImmediateWork;
  clock: Clock;
  maxStepsPerCall: number;
  /** Instances one multi-instance body may have (`WORKFLOW_MAX_MULTI_INSTANCE`). */
  maxMultiInstance: number;
}

/** An engine call on a stored instance, computed, not yet written. */
export interface PlannedCall {
  state: InstanceState;
  effects: Effect[];
  now: Date;
  /** The revision the instance was read at: its write's guard. */
  revision: number;
  target: EffectTarget;
  /** A call activity starts or ends: the write needs the follow-up of CallActivities. */
  callsNeeded: boolean;
  /** The event may change a suspended instance (an operator's cancel or variables): see the write's guard. */
  allowSuspended: boolean;
}

/**
 * Events an operator may apply to a suspended instance (as in Camunda 7, where a suspended instance
 * can be deleted and its variables set); everything else waits for the resume.
 */
export function allowedWhileSuspended(event: EngineEvent): boolean {
  return event.type === 'cancel' || event.type === 'setVariables';
}

/** The start of a new instance, computed, not yet written. */
export interface PlannedStart {
  instance: NewInstance;
  effects: Effect[];
  target: EffectTarget;
  /** A call activity starts (or, for a child, the instance ends at once): see CallActivities. */
  callsNeeded: boolean;
}

/** A definition to start an instance of. */
export interface StartDefinition {
  id: string;
  org_id: string;
  process_key: string;
}

/**
 * The planning half of an engine call, which reads and writes nothing of the instance: runs the pure
 * engine on a state (an event applied, or a start) and then the work that must happen at once
 * (scripts, decisions) until every token waits. What it returns, the writers write.
 */
export class Planner {
  constructor(private readonly options: PlannerOptions) {}

  /**
   * One engine call on an instance as read: applies the event and runs the immediate work. Throws
   * an {@link EngineCallError} for an instance not found or ended and for an engine refusal.
   */
  async plan(
    instanceId: string,
    stored: StoredInstance | null,
    event: EngineEvent,
    condition?: EventCondition,
  ): Promise<PlannedCall> {
    if (!stored) throw new EngineCallError('notFound', 'No such process instance');
    if (isEnded(stored.record.state))
      throw new EngineCallError('conflict', `The process instance is ${stored.record.state}`);
    const allowSuspended = allowedWhileSuspended(event);
    if (stored.record.suspended && !allowSuspended) throw new InstanceSuspendedError();
    const ctx = this.context({
      id: instanceId,
      businessKey: stored.record.business_key,
      definitionId: stored.record.definition_id,
    });
    await condition?.check(stored, ctx.now);
    const model = await this.options.models.get(stored.record.definition_id);
    const owner = { orgId: stored.record.org_id, instanceId };
    const workOwner = {
      ...owner,
      businessKey: stored.record.business_key,
      definitionId: stored.record.definition_id,
    };
    const first = unwrap(await applyEventPausing(model, stored.engineState, event, ctx, yieldToEventLoop));
    const { state, effects } = await this.drain(model, first.state, first.effects, workOwner, ctx);
    const parent =
      stored.record.parent_instance_id === null ? null : { instanceId: stored.record.parent_instance_id };
    return {
      state,
      effects,
      now: ctx.now,
      revision: stored.revision,
      target: { ...owner, processKey: stored.record.process_key, now: ctx.now.toISOString() },
      callsNeeded: needsCallActivityWork(state, effects, parent),
      allowSuspended,
    };
  }

  /**
   * Runs the start of a new instance (of a call activity, when `parent` is given) until every token
   * waits, immediate work included. Throws an {@link EngineCallError} for an engine refusal.
   */
  async planStart(
    definition: StartDefinition,
    input: {
      variables: Variables;
      businessKey?: string | null;
      /** The email of the user who starts the instance (`camunda:initiator`); absent: none. */
      initiator?: string | null;
      startEventId?: string;
      parent?: { instanceId: string };
    },
  ): Promise<PlannedStart> {
    const model = await this.options.models.get(definition.id);
    const id = randomUUID();
    const ctx = this.context({ id, businessKey: input.businessKey ?? null, definitionId: definition.id });
    const owner = { orgId: definition.org_id, instanceId: id };
    const startInput = {
      variables: input.variables,
      ...(input.startEventId === undefined ? {} : { startEventId: input.startEventId }),
      ...(input.initiator === undefined ? {} : { initiator: input.initiator }),
      ...(input.parent === undefined ? {} : { calledByParent: true }),
    };
    const first = unwrap(await startInstancePausing(model, startInput, ctx, yieldToEventLoop));
    const workOwner = { ...owner, businessKey: input.businessKey ?? null, definitionId: definition.id };
    const { state, effects } = await this.drain(model, first.state, first.effects, workOwner, ctx);
    const instance: NewInstance = {
      id,
      orgId: definition.org_id,
      definitionId: definition.id,
      processKey: definition.process_key,
      businessKey: input.businessKey ?? null,
      state,
      now: ctx.now,
    };
    return {
      instance,
      effects,
      target: { ...owner, processKey: definition.process_key, now: ctx.now.toISOString() },
      callsNeeded: needsCallActivityWork(state, effects, input.parent ?? null),
    };
  }

  /** Runs immediate waits (scripts, decisions) opened by the engine until none is left. */
  private async drain(
    model: ProcessModel,
    initialState: InstanceState,
    initialEffects: Effect[],
    owner: WaitOwner,
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

  private context(instance: InstanceFacts): EngineContext {
    return {
      now: this.options.clock.now(),
      newId: randomUUID,
      maxStepsPerCall: this.options.maxStepsPerCall,
      maxMultiInstance: this.options.maxMultiInstance,
      instance,
    };
  }
}

function unwrap(result: EngineResult): { state: InstanceState; effects: Effect[] } {
  if (result.ok) return result;
  throw refusalError(result.error);
}
