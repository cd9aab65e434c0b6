import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { ModificationInstruction, Variables } from '../engine/runtime/index.js';
import { findDefinition, setDefinitionSuspended } from '../engine/store/process-definitions.js';
import {
  findInstance,
  isEnded,
  setInstanceSuspended,
  type InstanceRecord,
} from '../engine/store/process-instances.js';
import { WorkflowErrors } from '../errors.js';

/**
 * Operations on running instances as plain functions, without a role check: the instance routes
 * check the Operator role first (InstanceService), and a batch runner checks it once per batch
 * and calls these per item. Errors are the API's (404 unknown, 409 ended or suspended, 400 invalid).
 */

/** What the operations need. */
export interface OperationsContext {
  pool: Pool;
  driver: InstanceDriver;
  clock: Clock;
}

/** A modification as the API takes it (see docs/workflow/operations.md). */
export interface ModificationRequest {
  instructions: ModificationInstruction[];
  variables?: Variables | undefined;
  skipIoMappings?: boolean | undefined;
}

/** What suspending or resuming a version changed. */
export interface DefinitionSuspension {
  definition_id: string;
  suspended: boolean;
  /** Running instances of the version whose flag changed. */
  instances_changed: number;
}

/**
 * Suspends a running instance: its work waits (no fetch-and-lock, completion, timer, correlation
 * or connector call) until {@link resumeInstance}. Suspending a suspended instance changes nothing.
 */
export function suspendInstance(ctx: OperationsContext, id: string, actor: string): Promise<InstanceRecord> {
  return setSuspended(ctx, id, true, actor);
}

/** Resumes a suspended instance: its waiting work goes on (due timers fire at the next claim). */
export function resumeInstance(ctx: OperationsContext, id: string, actor: string): Promise<InstanceRecord> {
  return setSuspended(ctx, id, false, actor);
}

async function setSuspended(
  ctx: OperationsContext,
  id: string,
  suspended: boolean,
  actor: string,
): Promise<InstanceRecord> {
  const changed = await setInstanceSuspended(ctx.pool, { id, suspended, actor, now: ctx.clock.now() });
  if (changed) return changed;
  const current = await findInstance(ctx.pool, id);
  if (!current) throw WorkflowErrors.notFound('No such process instance');
  if (isEnded(current.state)) throw WorkflowErrors.conflict(`The process instance is ${current.state}`);
  return current;
}

/**
 * Modifies a running instance's tokens in one engine call (one transaction): every instruction is
 * validated against the model and the state, and any problem refuses the whole request (400 with
 * `details.problems`). A suspended instance is refused (409): resume it first.
 */
export async function modifyInstance(
  ctx: OperationsContext,
  id: string,
  request: ModificationRequest,
  actor: string,
  db: Pool | PoolClient = ctx.pool,
): Promise<InstanceRecord> {
  const event = {
    type: 'modify' as const,
    instructions: request.instructions,
    actor,
    ...(request.variables === undefined ? {} : { variables: request.variables }),
    ...(request.skipIoMappings === undefined ? {} : { skipIoMappings: request.skipIoMappings }),
  };
  return (await ctx.driver.apply(id, event, undefined, db)).instance;
}

/**
 * Suspends a deployed version and its running instances: new starts of it are refused (409), and
 * its timer and message start events do not start it, until {@link resumeDefinition}.
 */
export function suspendDefinition(
  ctx: OperationsContext,
  definitionId: string,
  actor: string,
): Promise<DefinitionSuspension> {
  return setDefinition(ctx, definitionId, true, actor);
}

/** Resumes a suspended version and every suspended running instance of it. */
export function resumeDefinition(
  ctx: OperationsContext,
  definitionId: string,
  actor: string,
): Promise<DefinitionSuspension> {
  return setDefinition(ctx, definitionId, false, actor);
}

async function setDefinition(
  ctx: OperationsContext,
  definitionId: string,
  suspended: boolean,
  actor: string,
): Promise<DefinitionSuspension> {
  const changed = await setDefinitionSuspended(ctx.pool, {
    definitionId,
    suspended,
    actor,
    now: ctx.clock.now(),
  });
  if (changed) return { definition_id: definitionId, suspended, instances_changed: changed.instances };
  const definition = await findDefinition(ctx.pool, definitionId);
  if (!definition) throw WorkflowErrors.notFound('No such deployment');
  throw WorkflowErrors.conflict('A draft cannot be suspended or resumed; deploy it as a version first');
}
