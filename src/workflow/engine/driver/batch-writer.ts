import pg from 'pg';
import { isDatabaseUnavailable, type Pool, type PoolClient } from '../../../platform/database/pool.js';
import type { Effect } from '../runtime/index.js';
import {
  addGuardedUpdates,
  addNewInstances,
  runGuardedUpdates,
  runNewInstances,
  type NewInstance,
} from '../store/process-instances.js';
import type { DrivenInstance } from './driver-types.js';
import { EffectWrites, type InstanceGuard, type WrittenEffects } from './effects-writer.js';
import type { EffectTarget } from '../store/tagged-rows.js';
import type { GroupOutcome } from './group-commit.js';
import type { InstanceRecord } from '../store/process-instances.js';
import type { PlannedCall, PlannedStart } from './planner.js';
import { WriteStatement } from '../store/write-statement.js';

/** One instance's planned write, as the batch writer sees it. */
export interface PlannedWrite {
  target: EffectTarget;
  effects: Effect[];
  /** A call activity starts or ends: the item is driven on its own, in a transaction of its own. */
  callsNeeded: boolean;
}

/** The instance rows of a batch: new instances, or guarded updates of stored ones. */
export interface BatchRows<P extends PlannedWrite> {
  /** Adds the instance rows to `statement` as its first CTEs; returns the guard of the effects. */
  add(statement: WriteStatement, planned: readonly P[]): InstanceGuard;
  /** Runs the statement; the instances written, by id. */
  run(db: Pool | PoolClient, statement: WriteStatement): Promise<Map<string, InstanceRecord>>;
  /** An instance the statement left out (its guard failed): the item's error, or `alone`. */
  missing(planned: P): Error | 'alone';
}

/** How a batch of items is planned, written and followed up. */
export interface BatchSpec<I, P extends PlannedWrite, O> {
  /**
   * The pool (the statement commits on its own) or the caller's transaction (a failure rolls it
   * back, so it is the caller's to handle).
   */
  db: Pool | PoolClient;
  /** Plans one item, or leaves it to `alone`. Throwing makes the error that item's outcome. */
  plan(item: I): Promise<P | 'alone'>;
  rows: BatchRows<P>;
  /** Runs before the statement (locks to take in a set order). */
  before?(planned: readonly P[]): Promise<void>;
  /** A written instance, right after the statement: remember it, count it. */
  wrote(instance: InstanceRecord, planned: P, written: WrittenEffects): void;
  /** What follows a written instance's write (its message and signal hooks). */
  afterWrite(instance: InstanceRecord, written: WrittenEffects): Promise<void>;
  /** Drives one item on its own: one that needs call activity work, or one the batch left out. */
  alone(item: I): Promise<O>;
}

/**
 * The one skeleton of every batch of engine calls: plan each item, write all that can go together
 * with one statement (their instance rows set-wise, then all their effects, under the guard of the
 * rows written), follow up each written instance, and drive the rest one by one (`alone`). Outcomes
 * are in the items' order; an item's planning error is its outcome only. On the pool a statement
 * that failed wrote nothing, so its items go `alone`, and a follow-up that failed is that item's
 * error; in the caller's transaction either failure is thrown, as the transaction is lost. A
 * statement that failed because the database is out of reach is every batched item's error.
 */
export async function writeBatch<I, P extends PlannedWrite, O>(
  items: readonly I[],
  spec: BatchSpec<I, P, O | DrivenInstance>,
): Promise<GroupOutcome<O | DrivenInstance>[]> {
  const onPool = spec.db instanceof pg.Pool;
  const outcomes: GroupOutcome<O | DrivenInstance>[] = items.map(() => ({
    ok: false,
    error: new Error('an item of a batch was not written'),
  }));
  const batched: { index: number; planned: P }[] = [];
  const onTheirOwn: number[] = [];
  for (const [index, item] of items.entries()) {
    try {
      const planned = await spec.plan(item);
      if (planned === 'alone' || planned.callsNeeded) onTheirOwn.push(index);
      else batched.push({ index, planned });
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  }
  let records: Awaited<ReturnType<typeof writeTogether>>;
  try {
    records = batched.length > 0 ? await writeTogether(batched, spec, onPool) : undefined;
  } catch (error) {
    if (!onPool) throw error;
    // The database is out of reach: driving each item alone would wait out the same timeouts once
    // per item, one after another. Every batched item fails with that error (nothing was written).
    for (const { index } of batched) outcomes[index] = { ok: false, error };
    batched.length = 0;
    records = new Map();
  }
  if (records === undefined) onTheirOwn.push(...batched.map((b) => b.index));
  for (const { index, planned } of records === undefined ? [] : batched) {
    const { record, written } = records?.get(planned.target.instanceId) ?? {};
    if (record === undefined || written === undefined) {
      const missing = spec.rows.missing(planned);
      if (missing === 'alone') onTheirOwn.push(index);
      else outcomes[index] = { ok: false, error: missing };
      continue;
    }
    spec.wrote(record, planned, written);
    try {
      await spec.afterWrite(record, written);
      outcomes[index] = { ok: true, value: { instance: record, written } };
    } catch (error) {
      if (!onPool) throw error;
      outcomes[index] = { ok: false, error };
    }
  }
  for (const index of onTheirOwn.sort((a, b) => a - b)) {
    try {
      outcomes[index] = { ok: true, value: await spec.alone(items[index] as I) };
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  }
  return outcomes;
}

/**
 * Writes the batched items with one statement; by instance id, those written with what they wrote.
 * Undefined when the statement failed on the pool (nothing was written) for a reason an item alone
 * may not meet; an unreachable database is thrown.
 */
async function writeTogether<P extends PlannedWrite>(
  batched: readonly { planned: P }[],
  spec: Pick<BatchSpec<unknown, P, unknown>, 'db' | 'rows' | 'before'>,
  onPool: boolean,
): Promise<Map<string, { record: InstanceRecord; written: WrittenEffects }> | undefined> {
  const planned = batched.map((b) => b.planned);
  await spec.before?.(planned);
  try {
    const statement = new WriteStatement();
    const guard = spec.rows.add(statement, planned);
    const writes = new EffectWrites();
    const written = planned.map((p) => writes.add(p.target, p.effects));
    writes.write(statement, guard);
    const records = await spec.rows.run(spec.db, statement);
    const result = new Map<string, { record: InstanceRecord; written: WrittenEffects }>();
    for (const [i, p] of planned.entries()) {
      const record = records.get(p.target.instanceId);
      if (record !== undefined)
        result.set(p.target.instanceId, { record, written: written[i] as WrittenEffects });
    }
    return result;
  } catch (error) {
    if (!onPool || isDatabaseUnavailable(error)) throw error;
    return undefined;
  }
}

/**
 * New top-level instances, inserted with consecutive counters per key (see {@link addNewInstances});
 * one left out had no counter row, or (`latestEnabled`) its definition is no longer the latest
 * enabled version: `missing` says which error that is.
 */
export function newInstanceRows(
  missing: (instance: NewInstance) => Error,
  options: { latestEnabled?: string } = {},
): BatchRows<PlannedStart> {
  return {
    add: (statement, planned) =>
      addNewInstances(
        statement,
        planned.map((p) => p.instance),
        options,
      ),
    run: runNewInstances,
    missing: (planned) => missing(planned.instance),
  };
}

/** A planned call on a stored instance, with the task its worker must still hold, if any. */
export type PlannedUpdate = PlannedCall & { heldTask?: { taskId: string; workerId: string } };

/**
 * Updates of stored instances, each guarded by the revision it was planned on (and by its held task);
 * one left out changed meanwhile and goes `alone`, which reads it again.
 */
export const guardedUpdateRows: BatchRows<PlannedUpdate> = {
  add: (statement, planned) =>
    addGuardedUpdates(
      statement,
      planned.map((p) => ({
        id: p.target.instanceId,
        state: p.state,
        now: p.now,
        expectedRevision: p.revision,
        ...(p.heldTask === undefined ? {} : { heldTask: p.heldTask }),
      })),
    ),
  run: runGuardedUpdates,
  missing: () => 'alone',
};
