import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { InstanceState } from '../runtime/index.js';
import {
  instanceColumns,
  rootVariables,
  stillLatestEnabled,
  toInstanceRecord,
  type InstanceRecord,
  type InstanceRow,
} from './instance-repository.js';
import { unnestParams, type StatementBuilder, type WriteStatement } from '../store/write-statement.js';

/*
 * The set-wise writes of a batch of engine calls (the timer executor's): one UPDATE of every
 * instance a batch fires, one INSERT of every instance it starts, each a CTE of one statement whose
 * effects (EffectWrites) check the instance id of each row against it.
 */

/** A new top-level instance of {@link addNewInstances}. */
export interface NewInstance {
  id: string;
  orgId: string;
  definitionId: string;
  processKey: string;
  businessKey?: string | null;
  state: InstanceState;
  now: Date;
}

function countersOf(instances: readonly NewInstance[]) {
  const keys = new Map<string, { orgId: string; processKey: string; count: number }>();
  const ranks = instances.map((instance) => {
    const id = JSON.stringify([instance.orgId, instance.processKey]);
    const key = keys.get(id) ?? { orgId: instance.orgId, processKey: instance.processKey, count: 0 };
    keys.set(id, key);
    return ++key.count;
  });
  return { counted: [...keys.values()], ranks };
}

/**
 * Locks the counter rows of the keys of `instances` in one order, so that two transactions
 * starting instances of several keys each never deadlock (see {@link addNewInstances}).
 */
export async function lockInstanceCounters(
  client: PoolClient,
  instances: readonly NewInstance[],
): Promise<void> {
  const { counted } = countersOf(instances);
  await client.query({
    name: 'workflow.instances.lock-counters',
    text: `SELECT 1 FROM process_keys k
           JOIN unnest($1::uuid[], $2::text[]) AS c(org_id, process_key)
             ON k.org_id = c.org_id AND k.process_key = c.process_key
           ORDER BY k.org_id, k.process_key FOR UPDATE OF k`,
    values: [counted.map((k) => k.orgId), counted.map((k) => k.processKey)],
  });
}

/**
 * Adds the insert of several new top-level instances, with consecutive counters per key, as the
 * first CTEs of `statement` (`counters`, then `new_instances`); an instance whose key has no counter
 * row is left out. With `latestEnabled`, nothing is inserted unless that definition is still the
 * latest enabled version of its key (every instance must be of it). Returns the guard of their
 * effects, given the SQL of a row's instance id.
 */
export function addNewInstances(
  statement: StatementBuilder,
  instances: readonly NewInstance[],
  options: { latestEnabled?: string } = {},
): (instanceIdSql: string) => string {
  const { counted, ranks } = countersOf(instances);
  const stillLatest =
    options.latestEnabled === undefined
      ? ''
      : `AND ${stillLatestEnabled(statement.param(options.latestEnabled), 'k.org_id', 'k.process_key')}`;
  const counters = unnestParams(statement, [
    [counted.map((k) => k.orgId), 'uuid'],
    [counted.map((k) => k.processKey), 'text'],
    [counted.map((k) => k.count), 'bigint'],
  ]);
  statement.with(
    'counters',
    `UPDATE process_keys k SET last_counter = k.last_counter + c.n
     FROM ${counters} AS c(org_id, process_key, n)
     WHERE k.org_id = c.org_id AND k.process_key = c.process_key ${stillLatest}
     RETURNING k.org_id, k.process_key, k.last_counter - c.n AS base`,
  );
  const rows = unnestParams(statement, [
    [instances.map((i) => i.id), 'uuid'],
    [instances.map((i) => i.orgId), 'uuid'],
    [instances.map((i) => i.definitionId), 'uuid'],
    [instances.map((i) => i.processKey), 'text'],
    [instances.map((i) => i.businessKey ?? null), 'text'],
    [ranks, 'bigint'],
    [instances.map((i) => i.state.status), 'text'],
    [instances.map((i) => JSON.stringify(rootVariables(i.state))), 'jsonb'],
    [instances.map((i) => JSON.stringify(i.state)), 'jsonb'],
    [instances.map((i) => i.now), 'timestamptz'],
  ]);
  statement.with(
    'new_instances',
    `INSERT INTO process_instances
       (id, org_id, definition_id, process_key, business_key, counter, state, variables, engine_state, started_at,
        ended_at)
     SELECT s.id, s.org_id, s.definition_id, s.process_key, s.business_key, counters.base + s.rank, s.state,
            s.variables, s.engine_state, s.now,
            CASE WHEN s.state IN ('completed', 'cancelled', 'terminated') THEN s.now END
     FROM ${rows} AS s(id, org_id, definition_id, process_key, business_key, rank, state, variables, engine_state, now)
     JOIN counters ON counters.org_id = s.org_id AND counters.process_key = s.process_key
     RETURNING ${instanceColumns}`,
  );
  return (instanceIdSql) => `${instanceIdSql} IN (SELECT id FROM new_instances)`;
}

/** Runs a statement of {@link addNewInstances}; the inserted instances by id. */
export async function runNewInstances(
  client: Pool | PoolClient,
  statement: WriteStatement,
): Promise<Map<string, InstanceRecord>> {
  const rows = await statement.run<InstanceRow>(client, 'insert_instances', 'SELECT * FROM new_instances');
  return new Map(rows.map((row) => [row.id, toInstanceRecord(row)]));
}

/** The new state of one instance of {@link addGuardedUpdates}. */
export interface GuardedUpdate {
  id: string;
  state: InstanceState;
  now: Date;
  expectedRevision: number;
  /** An external task the worker must still hold (a live lock at `now`) for the update to happen. */
  heldTask?: { taskId: string; workerId: string };
}

/**
 * Adds the guarded updates of several instances as one CTE (`instance_update`) of `statement`:
 * each row changes only if its revision is still the expected one and the worker still holds its
 * `heldTask`, if it names one. Returns the guard of the effects, given the SQL of a written row's
 * instance id.
 */
export function addGuardedUpdates(
  statement: StatementBuilder,
  updates: readonly GuardedUpdate[],
): (instanceIdSql: string) => string {
  const rows = unnestParams(statement, [
    [updates.map((u) => u.id), 'uuid'],
    [updates.map((u) => u.expectedRevision), 'int'],
    [updates.map((u) => u.state.status), 'text'],
    [updates.map((u) => JSON.stringify(rootVariables(u.state))), 'jsonb'],
    [updates.map((u) => JSON.stringify(u.state)), 'jsonb'],
    [updates.map((u) => u.now), 'timestamptz'],
    [updates.map((u) => u.heldTask?.taskId ?? null), 'uuid'],
    [updates.map((u) => u.heldTask?.workerId ?? null), 'text'],
  ]);
  const returned = instanceColumns
    .split(', ')
    .map((column) => `i.${column}`)
    .join(', ');
  statement.with(
    'instance_update',
    `UPDATE process_instances i
     SET state = u.state, variables = u.variables, engine_state = u.engine_state, revision = i.revision + 1,
         ended_at = CASE WHEN u.state IN ('completed', 'cancelled', 'terminated') THEN COALESCE(i.ended_at, u.now) END
     FROM ${rows} AS u(id, revision, state, variables, engine_state, now, task_id, worker_id)
     WHERE i.id = u.id AND i.revision = u.revision
       AND (u.task_id IS NULL OR EXISTS (SELECT 1 FROM external_tasks t
                                        WHERE t.id = u.task_id AND t.worker_id = u.worker_id AND t.lock_expires_at > u.now))
     RETURNING ${returned}`,
  );
  return (instanceIdSql) => `${instanceIdSql} IN (SELECT id FROM instance_update)`;
}

/** Runs a statement whose first CTE is {@link addGuardedUpdates}'; the updated instances by id. */
export async function runGuardedUpdates(
  client: Pool | PoolClient,
  statement: WriteStatement,
): Promise<Map<string, InstanceRecord>> {
  const rows = await statement.run<InstanceRow>(client, 'select_updates', 'SELECT * FROM instance_update');
  return new Map(rows.map((row) => [row.id, toInstanceRecord(row)]));
}
