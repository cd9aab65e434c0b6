import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { CallActivityWait, Effect, EngineEvent, InstanceState, Variables } from '../runtime/index.js';
import { findCalledDefinition } from './called-definition.js';
import { EngineCallError, isGoneOrConflict } from './driver-errors.js';
import type { DrivenInstance } from './driver-types.js';
import {
  findInstance,
  findLiveChildren,
  findParentWait,
  type InstanceRecord,
} from '../store/process-instances.js';

/** Calls beyond this depth (a process that calls itself without end) fail the call activity. */
export const MAX_CALL_DEPTH = 32;

/** What CallActivities needs of the driver: start an instance, apply an event. */
export interface CallActivityDriver {
  start(
    definition: { id: string; org_id: string; process_key: string },
    input: {
      variables: Variables;
      businessKey: string | null;
      parent: { instanceId: string; waitId: string; depth: number };
    },
    db: Pool | PoolClient,
  ): Promise<DrivenInstance>;
  apply(
    instanceId: string,
    event: EngineEvent,
    condition: undefined,
    db: Pool | PoolClient,
    depth: number,
  ): Promise<DrivenInstance>;
}

/** True when a write with these effects has call activity work to do. */
export function needsCallActivityWork(
  state: InstanceState,
  effects: readonly Effect[],
  parent: { instanceId: string } | null,
): boolean {
  return effects.some(
    (effect) =>
      (effect.type === 'waitOpened' &&
        effect.wait.kind === 'callActivity' &&
        state.waits[effect.wait.waitId]) ||
      (effect.type === 'waitClosed' && effect.kind === 'callActivity') ||
      ((effect.type === 'instanceEnded' || effect.type === 'escalationPropagated') && parent !== null),
  );
}

/**
 * The driver's side of call activities, run in the same transaction as the write that caused it:
 * a call activity wait that opened starts the child instance (the latest enabled, pinned or same-
 * deployment version of the called key, in the caller's org), or fails the wait with an incident
 * when there is none; a call activity wait that closed without the child (the caller was cancelled
 * or a boundary event interrupted it) cancels the child; a child that ended completes the caller's
 * wait (completed or terminated: with the child's variables, for the output mappings), throws its
 * uncaught BPMN error there, or fails it (cancelled on its own: an incident on the call activity);
 * an escalation the child did not catch is thrown at the caller's call activity while the child runs.
 */
export class CallActivities {
  constructor(private readonly driver: CallActivityDriver) {}

  /**
   * Does the call activity work of a write that just ran on `db`, and returns the instance as it is
   * afterwards (a child that failed to start or ended at once changed it again).
   */
  async followUp(
    instance: InstanceRecord,
    state: InstanceState,
    effects: readonly Effect[],
    db: Pool | PoolClient,
    depth: number,
  ): Promise<InstanceRecord> {
    if (
      !needsCallActivityWork(
        state,
        effects,
        instance.parent_instance_id === null ? null : { instanceId: instance.id },
      )
    )
      return instance;
    const closed: string[] = [];
    for (const effect of effects) {
      if (effect.type === 'waitClosed' && effect.kind === 'callActivity' && effect.reason !== 'completed')
        closed.push(effect.waitId);
    }
    if (closed.length > 0) await this.cancelChildren(closed, db, depth);
    for (const effect of effects) {
      if (effect.type !== 'waitOpened' || effect.wait.kind !== 'callActivity') continue;
      if (state.waits[effect.wait.waitId] === undefined) continue;
      await this.startChild(instance, effect.wait, db, depth);
    }
    if (instance.parent_instance_id !== null) {
      for (const effect of effects) {
        if (effect.type === 'escalationPropagated')
          await this.escalateToParent(instance, effect.escalationCode, db, depth);
      }
      const ended = effects.find((effect) => effect.type === 'instanceEnded');
      if (ended) await this.notifyParent(instance, effects, ended.status, db, depth);
    }
    return (await findInstance(db, instance.id)) ?? instance;
  }

  private async startChild(
    caller: InstanceRecord,
    wait: CallActivityWait,
    db: Pool | PoolClient,
    depth: number,
  ): Promise<void> {
    const fail = (message: string) =>
      this.ignoreGone(
        this.driver.apply(
          caller.id,
          { type: 'fail', waitId: wait.waitId, message: `call activity '${wait.elementId}': ${message}` },
          undefined,
          db,
          depth,
        ),
      );
    if (depth + 1 > MAX_CALL_DEPTH) return fail(`calls are nested more than ${MAX_CALL_DEPTH} deep`);
    const found = await findCalledDefinition(
      db,
      { orgId: caller.org_id, definitionId: caller.definition_id },
      wait.calledElement,
    );
    if (!found.ok) return fail(found.message);
    try {
      await this.driver.start(
        found.definition,
        {
          variables: wait.variables,
          businessKey: wait.businessKey === undefined ? caller.business_key : wait.businessKey,
          parent: { instanceId: caller.id, waitId: wait.waitId, depth: depth + 1 },
        },
        db,
      );
    } catch (error) {
      // An engine refusal (the called process has no none start event, bad variables) is checked
      // before anything is written, so the transaction is still good for the incident.
      if (error instanceof EngineCallError) return fail(error.message);
      throw error;
    }
  }

  private async cancelChildren(waitIds: string[], db: Pool | PoolClient, depth: number): Promise<void> {
    for (const child of await findLiveChildren(db, waitIds)) {
      await this.ignoreGone(this.driver.apply(child, { type: 'cancel' }, undefined, db, depth + 1));
    }
  }

  private async notifyParent(
    child: InstanceRecord,
    effects: readonly Effect[],
    status: 'completed' | 'cancelled' | 'terminated',
    db: Pool | PoolClient,
    depth: number,
  ): Promise<void> {
    const waitId = await findParentWait(db, child.id);
    if (child.parent_instance_id === null || waitId === null) return;
    const propagated = effects.find((effect) => effect.type === 'errorPropagated');
    let event: EngineEvent;
    if (propagated) {
      event = {
        type: 'bpmnError',
        waitId,
        errorCode: propagated.errorCode,
        message: `thrown by called instance ${child.id}`,
      };
    } else if (status === 'cancelled') {
      event = { type: 'fail', waitId, message: `the called instance ${child.id} was cancelled` };
    } else {
      event = { type: 'complete', waitId, variables: child.variables };
    }
    await this.ignoreGone(
      this.driver.apply(child.parent_instance_id, event, undefined, db, Math.max(0, depth - 1)),
    );
  }

  // An escalation the child did not catch is thrown at the caller's call activity; the child goes
  // on, unless an interrupting catch there ends the call activity (which cancels the child).
  private async escalateToParent(
    child: InstanceRecord,
    escalationCode: string,
    db: Pool | PoolClient,
    depth: number,
  ): Promise<void> {
    const waitId = await findParentWait(db, child.id);
    if (child.parent_instance_id === null || waitId === null) return;
    const event: EngineEvent = { type: 'escalation', waitId, escalationCode };
    await this.ignoreGone(
      this.driver.apply(child.parent_instance_id, event, undefined, db, Math.max(0, depth - 1)),
    );
  }

  // The caller's wait or the child is gone already (the parent cancelled it): nothing left to do.
  private async ignoreGone(work: Promise<unknown>): Promise<void> {
    try {
      await work;
    } catch (error) {
      if (isGoneOrConflict(error)) return;
      throw error;
    }
  }
}
