import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { InstanceState, InstanceStatus, Variables } from '../runtime/index.js';
import { taskHeld, type TaskLock } from './external-tasks.js';
import type { IncidentRecord } from './incidents.js';
import { addKeyCounters, countersOf } from './process-keys.js';
import { unnestParams, type StatementBuilder, type WriteStatement } from './write-statement.js';

/*
 * `process_instances`: one row per instance, its engine state and a revision that guards every
 * write (an engine call writes only if the instance is unchanged since it read it). Single and
 * set-wise writes both return the written rows.
 */

/** A process instance as the API shows it. */
export interface InstanceRecord {
  id: string;
  org_id: string;
  counter: number;
  process_key: string;
  definition_id: string;
  state: InstanceStatus;
  business_key: string | null;
  variables: Variables;
  started_at: string;
  ended_at: string | null;
  /** The instance whose call activity started this one; null for a top-level instance. */
  parent_instance_id: string | null;
  /** Suspended by an operator: its work waits until it is resumed (migration 0019). */
  suspended: boolean;
}

/** A row of {@link instanceColumns}. */
export interface InstanceRow extends Omit<InstanceRecord, 'counter' | 'started_at' | 'ended_at'> {
  counter: string;
  started_at: Date;
  ended_at: Date | null;
}

/** The columns of an {@link InstanceRecord}. */
export const instanceColumns =
  'id, org_id, counter, process_key, definition_id, state, business_key, variables, started_at, ended_at, parent_instance_id, suspended';

// The instance columns of an `UPDATE process_instances i … RETURNING`, qualified (the FROM list has
// columns of the same names).
const updatedInstanceColumns = instanceColumns
  .split(', ')
  .map((column) => `i.${column}`)
  .join(', ');

/** Converts a row (bigint counter as text, dates) to the API shape. */
export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  return {
    ...row,
    counter: Number(row.counter),
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
  };
}

/** The root scope's variables of an engine state. */
export function rootVariables(state: InstanceState): Variables {
  return state.scopes[state.rootScopeId]?.variables ?? {};
}

/**
 * Inserts a new instance as the final part of `statement`, whose first CTE is the counter (see
 * {@link addInstanceCounter}). Null when the counter's guard failed and nothing was written.
 */
export async function insertInstance(
  client: Pool | PoolClient,
  statement: WriteStatement,
  input: {
    id: string;
    orgId: string;
    definitionId: string;
    processKey: string;
    businessKey: string | null;
    state: InstanceState;
    now: Date;
    /** The call activity wait that starts this instance. */
    parent?: { instanceId: string; waitId: string };
  },
): Promise<InstanceRecord | null> {
  const ended = isEnded(input.state.status) ? input.now : null;
  const rows = await statement.run<InstanceRow>(
    client,
    'insert_instance',
    `INSERT INTO process_instances
       (id, org_id, definition_id, process_key, counter, business_key, state, variables, engine_state, started_at, ended_at,
        parent_instance_id, parent_wait_id)
     SELECT ${statement.param(input.id)}, ${statement.param(input.orgId)}, ${statement.param(input.definitionId)},
            ${statement.param(input.processKey)}, counter.last_counter,
            ${statement.param(input.businessKey)}, ${statement.param(input.state.status)},
            ${statement.param(JSON.stringify(rootVariables(input.state)))}, ${statement.param(JSON.stringify(input.state))},
            ${statement.param(input.now)}, ${statement.param(ended)},
            ${statement.param(input.parent?.instanceId ?? null)}, ${statement.param(input.parent?.waitId ?? null)}
     FROM counter
     RETURNING ${instanceColumns}`,
  );
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** An instance with its engine state, as read (without a lock) for an engine call. */
export interface StoredInstance {
  record: InstanceRecord;
  engineState: InstanceState;
  revision: number;
}

/** The columns a {@link StoredInstance} is made of, qualified by `alias` (for joins). */
export function storedInstanceColumns(alias: string): string {
  return [...instanceColumns.split(', '), 'engine_state', 'revision']
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** The row of {@link storedInstanceColumns}. */
export type StoredInstanceRow = InstanceRow & { engine_state: InstanceState; revision: number };

/** Converts a row of {@link storedInstanceColumns}. */
export function toStoredInstance(row: StoredInstanceRow): StoredInstance {
  const { engine_state, revision, ...record } = row;
  return { record: toInstanceRecord(record), engineState: engine_state, revision };
}

/** Reads an instance with its engine state and revision; null when absent. */
export async function readInstance(db: Pool | PoolClient, id: string): Promise<StoredInstance | null> {
  const { rows } = await db.query<StoredInstanceRow>({
    name: 'workflow.instances.read',
    text: `SELECT ${storedInstanceColumns('i')} FROM process_instances i WHERE i.id = $1`,
    values: [id],
  });
  const row = rows[0];
  return row ? toStoredInstance(row) : null;
}

/** Several instances by id, in one query (those that exist). */
export async function readInstances(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<StoredInstance[]> {
  const { rows } = await db.query<StoredInstanceRow>({
    name: 'workflow.instances.read-many',
    text: `SELECT ${storedInstanceColumns('i')} FROM process_instances i WHERE i.id = ANY($1::uuid[])`,
    values: [ids],
  });
  return rows.map(toStoredInstance);
}

/**
 * Adds the guarded update of an instance as the first CTE (`instance_update`) of `statement`: it
 * changes the row only if its revision is still `expectedRevision` and `condition` (extra SQL,
 * e.g. "the worker still holds the task") holds. Returns the guard the effects must check.
 */
export function addGuardedUpdate(
  statement: StatementBuilder,
  input: {
    id: string;
    state: InstanceState;
    now: Date;
    expectedRevision: number;
    condition: string | null;
    /** The event may change a suspended instance; otherwise the update refuses one. */
    allowSuspended?: boolean;
  },
): string {
  const status = statement.param(input.state.status);
  statement.with(
    'instance_update',
    `UPDATE process_instances
     SET state = ${status}, variables = ${statement.param(JSON.stringify(rootVariables(input.state)))},
         engine_state = ${statement.param(JSON.stringify(input.state))}, revision = revision + 1,
         ended_at = CASE WHEN ${status} IN ('completed', 'cancelled', 'terminated') THEN COALESCE(ended_at, ${statement.param(input.now)}) END
     WHERE id = ${statement.param(input.id)} AND revision = ${statement.param(input.expectedRevision)}
       ${input.allowSuspended === true ? '' : 'AND NOT suspended'}
       ${input.condition ? `AND ${input.condition}` : ''}
     RETURNING ${instanceColumns}`,
  );
  return 'EXISTS (SELECT 1 FROM instance_update)';
}

/** Runs a statement whose first CTE is the guarded update; null when the guard failed. */
export async function runGuardedUpdate(
  db: Pool | PoolClient,
  statement: WriteStatement,
): Promise<InstanceRecord | null> {
  const rows = await statement.run<InstanceRow>(db, 'select_update', 'SELECT * FROM instance_update');
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** One instance without its engine state. */
export async function findInstance(db: Pool | PoolClient, id: string): Promise<InstanceRecord | null> {
  const { rows } = await db.query<InstanceRow>(
    `SELECT ${instanceColumns} FROM process_instances WHERE id = $1`,
    [id],
  );
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** True for the states an instance never leaves. */
export function isEnded(status: InstanceStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'terminated';
}

/*
 * The set-wise writes of a batch of engine calls (the timer executor's, grouped starts and
 * completions): one UPDATE of every instance a batch fires, one INSERT of every instance it starts,
 * each a CTE of one statement whose effects (EffectWrites) check the instance id of each row against it.
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
  addKeyCounters(statement, counted, options.latestEnabled);
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
  statement.with(
    'instance_update',
    `UPDATE process_instances i
     SET state = u.state, variables = u.variables, engine_state = u.engine_state, revision = i.revision + 1,
         ended_at = CASE WHEN u.state IN ('completed', 'cancelled', 'terminated') THEN COALESCE(i.ended_at, u.now) END
     FROM ${rows} AS u(id, revision, state, variables, engine_state, now, task_id, worker_id)
     WHERE i.id = u.id AND i.revision = u.revision AND NOT i.suspended
       AND (u.task_id IS NULL OR ${taskHeld('u.task_id', 'u.worker_id', 'u.now')})
     RETURNING ${updatedInstanceColumns}`,
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

/** The instances started by the call activity waits `waitIds` that have not ended. */
export async function findLiveChildren(db: Pool | PoolClient, waitIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    name: 'workflow.calls.live-children',
    text: `SELECT id FROM process_instances WHERE parent_wait_id = ANY($1::uuid[]) AND ended_at IS NULL`,
    values: [waitIds],
  });
  return rows.map((row) => row.id);
}

/** The call activity wait that started an instance; null for a top-level (or absent) instance. */
export async function findParentWait(db: Pool | PoolClient, id: string): Promise<string | null> {
  const { rows } = await db.query<{ parent_wait_id: string | null }>({
    name: 'workflow.calls.parent-wait',
    text: 'SELECT parent_wait_id FROM process_instances WHERE id = $1',
    values: [id],
  });
  return rows[0]?.parent_wait_id ?? null;
}

/** Open (running or incident) instances per org, key and state. */
export interface OpenInstanceCount {
  org_id: string;
  process_key: string;
  state: 'running' | 'incident';
  count: string;
}

/** Counts the open instances, grouped (on the partial index of open instances, migration 0018). */
export async function countOpenInstances(db: Pool): Promise<OpenInstanceCount[]> {
  const { rows } = await db.query<OpenInstanceCount>({
    name: 'workflow.metrics.open-instances',
    text: `SELECT org_id::text AS org_id, process_key, state, count(*) AS count
             FROM process_instances WHERE state IN ('running', 'incident')
             GROUP BY org_id, process_key, state`,
  });
  return rows;
}

/** Filters of the instance list (the spec's parameters plus state, business key, dates, element). */
export interface InstanceFilter {
  orgId: string;
  definitionId?: string | undefined;
  processKey?: string | undefined;
  state?: string | undefined;
  businessKey?: string | undefined;
  /** Only suspended (true) or only not suspended (false) instances. */
  suspended?: boolean | undefined;
  /** Only instances with (true) or without (false) an open incident. */
  hasIncident?: boolean | undefined;
  /** Only open instances with a token waiting at this element. */
  elementId?: string | undefined;
  startedAfter?: string | undefined;
  startedBefore?: string | undefined;
  limit: number;
  offset: number;
  /** Keyset paging: only instances after this position of the order (started_at DESC, id DESC). */
  after?: InstancePosition | undefined;
}

/** A position in the instance list's order, as a cursor carries it. */
export interface InstancePosition {
  at: string;
  id: string;
}

/** One page of instances, newest first, with the filter's total and the position of the last item. */
export interface InstancePage {
  items: InstanceRecord[];
  total: number;
  /** Where the next page starts; null when this page is not full. */
  last: InstancePosition | null;
}

function instanceConditions(filter: InstanceFilter, values: unknown[]): string[] {
  const param = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const where = [`org_id = ${param(filter.orgId, 'uuid')}`];
  if (filter.definitionId !== undefined) where.push(`definition_id = ${param(filter.definitionId, 'uuid')}`);
  if (filter.processKey !== undefined) where.push(`process_key = ${param(filter.processKey, 'text')}`);
  if (filter.state !== undefined) where.push(`state = ${param(filter.state, 'text')}`);
  if (filter.businessKey !== undefined) where.push(`business_key = ${param(filter.businessKey, 'text')}`);
  if (filter.suspended !== undefined) where.push(`suspended = ${param(filter.suspended, 'boolean')}`);
  if (filter.startedAfter !== undefined)
    where.push(`started_at >= ${param(filter.startedAfter, 'timestamptz')}`);
  if (filter.startedBefore !== undefined)
    where.push(`started_at < ${param(filter.startedBefore, 'timestamptz')}`);
  if (filter.hasIncident !== undefined)
    where.push(
      `${filter.hasIncident ? '' : 'NOT '}EXISTS (SELECT 1 FROM incidents i
         WHERE i.process_instance_id = process_instances.id AND i.resolved_at IS NULL)`,
    );
  if (filter.elementId !== undefined)
    where.push(
      `state IN ('running', 'incident') AND EXISTS (SELECT 1 FROM jsonb_each(engine_state->'tokens') t
         WHERE t.value->>'elementId' = ${param(filter.elementId, 'text')} AND t.value->>'phase' <> 'active')`,
    );
  return where;
}

/**
 * One page of instances, newest first, with the total count of the filter. With `after` the page
 * starts past that position (keyset paging on the (org_id, started_at, id) index: as fast on the
 * thousandth page as on the first); otherwise at `offset`.
 */
export async function listInstances(pool: Pool, filter: InstanceFilter): Promise<InstancePage> {
  const countValues: unknown[] = [];
  const countWhere = instanceConditions(filter, countValues);
  const values: unknown[] = [];
  const where = instanceConditions(filter, values);
  if (filter.after) {
    values.push(filter.after.at, filter.after.id);
    where.push(`(started_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(filter.limit, filter.after ? 0 : filter.offset);
  const [{ rows }, { rows: counted }] = await Promise.all([
    pool.query<InstanceRow & { position: string }>(
      `SELECT ${instanceColumns},
              to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
       FROM process_instances WHERE ${where.join(' AND ')}
       ORDER BY started_at DESC, id DESC
       LIMIT $${values.length - 1} OFFSET $${values.length}`,
      values,
    ),
    pool.query<{ total: string }>(
      `SELECT count(*) AS total FROM process_instances WHERE ${countWhere.join(' AND ')}`,
      countValues,
    ),
  ]);
  const lastRow = rows.length === filter.limit ? rows[rows.length - 1] : undefined;
  return {
    items: rows.map(({ position: _position, ...row }) => toInstanceRecord(row)),
    total: Number(counted[0]?.total ?? 0),
    last: lastRow ? { at: lastRow.position, id: lastRow.id } : null,
  };
}

/** The engine state and open incidents of an instance. */
export async function instanceDetail(
  pool: Pool,
  id: string,
): Promise<{ engineState: InstanceState; incidents: IncidentRecord[] } | null> {
  const { rows } = await pool.query<{ engine_state: InstanceState; incidents: IncidentRecord[] }>(
    `SELECT engine_state,
            COALESCE((SELECT json_agg(json_build_object('id', i.id, 'activity_id', i.activity_id, 'kind', i.kind,
                                                         'message', i.message, 'created_at', i.created_at)
                                      ORDER BY i.created_at)
                      FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NULL), '[]') AS incidents
     FROM process_instances p WHERE p.id = $1`,
    [id],
  );
  return rows[0] ? { engineState: rows[0].engine_state, incidents: rows[0].incidents } : null;
}

/**
 * A task's lock and its instance (engine state included) in one read, without locking: what a
 * worker's completion needs before its engine call. The instance is null if it is gone.
 */
export async function readTaskLockWithInstance(
  db: Pool | PoolClient,
  taskId: string,
): Promise<{ lock: TaskLock; instance: StoredInstance | null } | null> {
  const { rows } = await db.query<StoredInstanceRow & TaskLockColumns>({
    name: 'workflow.external-tasks.read-lock-and-instance',
    text: `SELECT t.id AS task_id, t.process_instance_id AS task_instance_id, t.worker_id AS task_worker_id,
                  t.lock_expires_at AS task_lock_expires_at, t.retries AS task_retries,
                  ${storedInstanceColumns('i')}
           FROM external_tasks t LEFT JOIN process_instances i ON i.id = t.process_instance_id
           WHERE t.id = $1`,
    values: [taskId],
  });
  const row = rows[0];
  if (!row) return null;
  const { task_id, task_instance_id, task_worker_id, task_lock_expires_at, task_retries, ...instance } = row;
  const lock: TaskLock = {
    id: task_id,
    process_instance_id: task_instance_id,
    worker_id: task_worker_id,
    lock_expires_at: task_lock_expires_at,
    retries: task_retries,
  };
  return { lock, instance: instance.id === null ? null : toStoredInstance(instance) };
}

interface TaskLockColumns {
  task_id: string;
  task_instance_id: string;
  task_worker_id: string | null;
  task_lock_expires_at: Date | null;
  task_retries: number;
}

/**
 * A page of the instances of one definition that ended before `endedBefore`, in order of their end
 * (and id), after the cursor `after` (the last of the previous page): what history housekeeping
 * purges.
 */
export async function findEndedInstances(
  db: Pool,
  page: {
    definitionId: string;
    endedBefore: Date;
    after: { endedAt: Date; id: string } | null;
    limit: number;
  },
): Promise<{ id: string; ended_at: Date }[]> {
  const { rows } = await db.query<{ id: string; ended_at: Date }>({
    name: 'workflow.housekeeping.ended-instances',
    text: `SELECT id, ended_at FROM process_instances
               WHERE definition_id = $1 AND ended_at IS NOT NULL AND ended_at < $2
                 AND ($3::timestamptz IS NULL OR (ended_at, id) > ($3, $4::uuid))
               ORDER BY ended_at, id
               LIMIT $5`,
    values: [
      page.definitionId,
      page.endedBefore,
      page.after?.endedAt ?? null,
      page.after?.id ?? null,
      page.limit,
    ],
  });
  return rows;
}

/**
 * Locks up to `limit` instances of one definition that ended before `endedBefore`, oldest end
 * first, that instance retention may delete: none whose parent (the call activity that started it)
 * or any of whose children still runs. Rows another transaction holds are skipped, not waited for.
 */
export async function claimRemovableInstances(
  client: PoolClient,
  page: { definitionId: string; endedBefore: Date; limit: number },
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>({
    name: 'workflow.housekeeping.claim-removable-instances',
    text: `SELECT i.id FROM process_instances i
           WHERE i.definition_id = $1 AND i.ended_at IS NOT NULL AND i.ended_at < $2
             AND NOT EXISTS (SELECT 1 FROM process_instances p
                             WHERE p.id = i.parent_instance_id AND p.ended_at IS NULL)
             AND NOT EXISTS (SELECT 1 FROM process_instances c
                             WHERE c.parent_instance_id = i.id AND c.ended_at IS NULL)
           ORDER BY i.ended_at, i.id
           LIMIT $3
           FOR UPDATE OF i SKIP LOCKED`,
    values: [page.definitionId, page.endedBefore, page.limit],
  });
  return rows.map((row) => row.id);
}

/**
 * Deletes the ended instances `ids` (retention; claimed by `claimRemovableInstances` in the same
 * transaction). The rows that hang off an instance (tasks, incidents, jobs, subscriptions, outbox
 * rows, message start keys) go with it by their foreign keys' `ON DELETE CASCADE`; a child's
 * `parent_instance_id` becomes null. Its `process_history` has no foreign key: the caller deletes
 * it first. Returns how many instances were deleted.
 */
export async function deleteEndedInstances(client: PoolClient, ids: readonly string[]): Promise<number> {
  const outcome = await client.query({
    name: 'workflow.housekeeping.delete-ended-instances',
    text: 'DELETE FROM process_instances WHERE id = ANY($1::uuid[]) AND ended_at IS NOT NULL',
    values: [ids],
  });
  return outcome.rowCount ?? 0;
}

/**
 * Adds the guarded update of a migrated instance as the first CTE (`instance_update`): its new
 * state and definition, written only if it is still at `expectedRevision` and of `fromDefinitionId`.
 * Returns the guard its effects must check.
 */
export function addMigratedUpdate(
  statement: StatementBuilder,
  input: {
    id: string;
    state: InstanceState;
    expectedRevision: number;
    fromDefinitionId: string;
    toDefinitionId: string;
  },
): string {
  statement.with(
    'instance_update',
    `UPDATE process_instances
     SET definition_id = ${statement.param(input.toDefinitionId)}, state = ${statement.param(input.state.status)},
         variables = ${statement.param(JSON.stringify(rootVariables(input.state)))},
         engine_state = ${statement.param(JSON.stringify(input.state))}, revision = revision + 1
     WHERE id = ${statement.param(input.id)} AND revision = ${statement.param(input.expectedRevision)}
       AND definition_id = ${statement.param(input.fromDefinitionId)} AND ended_at IS NULL
     RETURNING ${instanceColumns}`,
  );
  return 'EXISTS (SELECT 1 FROM instance_update)';
}

/**
 * Adds the guarded updates of several migrated instances as one CTE (`instance_update`): each row
 * gets its new state and definition only if it is still at its expected revision, of `fromDefinitionId`
 * and not ended. Returns the guard of the effects, given the SQL of a row's instance id.
 */
export function addMigratedUpdates(
  statement: StatementBuilder,
  updates: readonly { id: string; state: InstanceState; expectedRevision: number }[],
  definitions: { fromDefinitionId: string; toDefinitionId: string },
): (instanceIdSql: string) => string {
  const rows = unnestParams(statement, [
    [updates.map((u) => u.id), 'uuid'],
    [updates.map((u) => u.expectedRevision), 'int'],
    [updates.map((u) => u.state.status), 'text'],
    [updates.map((u) => JSON.stringify(rootVariables(u.state))), 'jsonb'],
    [updates.map((u) => JSON.stringify(u.state)), 'jsonb'],
  ]);
  statement.with(
    'instance_update',
    `UPDATE process_instances i
     SET definition_id = ${statement.param(definitions.toDefinitionId)}, state = u.state, variables = u.variables,
         engine_state = u.engine_state, revision = i.revision + 1
     FROM ${rows} AS u(id, revision, state, variables, engine_state)
     WHERE i.id = u.id AND i.revision = u.revision AND i.ended_at IS NULL
       AND i.definition_id = ${statement.param(definitions.fromDefinitionId)}
     RETURNING ${updatedInstanceColumns}`,
  );
  return (instanceIdSql) => `${instanceIdSql} IN (SELECT id FROM instance_update)`;
}

/**
 * Sets the flag of a running instance and records the change; null when the instance is absent,
 * ended, or already in that state (nothing written then).
 */
export async function setInstanceSuspended(
  db: Pool | PoolClient,
  input: { id: string; suspended: boolean; actor: string; now: Date },
): Promise<InstanceRecord | null> {
  const { rows } = await db.query<InstanceRow>({
    name: 'workflow.instances.set-suspended',
    text: `WITH changed AS (
             UPDATE process_instances SET suspended = $2
             WHERE id = $1 AND ended_at IS NULL AND suspended <> $2
             RETURNING ${instanceColumns}
           ), entry AS (
             INSERT INTO process_history (process_instance_id, kind, element_id, element_type, token_id, at, data)
             SELECT id, CASE WHEN $2 THEN 'instanceSuspended' ELSE 'instanceResumed' END, process_key, 'process',
                    NULL, $3, jsonb_build_object('actor', $4::text)
             FROM changed
           )
           SELECT * FROM changed`,
    values: [input.id, input.suspended, input.now, input.actor],
  });
  return rows[0] ? toInstanceRecord(rows[0]) : null;
}

/** A condition on a root variable of a query (Camunda's `name_op_value`). */
export interface VariableCondition {
  name: string;
  op: 'eq' | 'neq' | 'gt' | 'gteq' | 'lt' | 'lteq' | 'like';
  /** The value as written; compared as a number, a boolean or a string as it reads. */
  value: string;
}

/** Filters of a query over instances of several orgs; `orgIds` undefined: every org. */
export interface InstanceQuery {
  orgIds: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
  businessKey?: string | undefined;
  businessKeyLike?: string | undefined;
  definitionIds?: readonly string[] | undefined;
  definitionKeys?: readonly string[] | undefined;
  /** Only instances that have not ended (true) or that have (false). */
  open?: boolean | undefined;
  suspended?: boolean | undefined;
  /** Only instances with (true) or without (false) an open incident. */
  withIncident?: boolean | undefined;
  /** Only instances in one of these states. */
  states?: readonly string[] | undefined;
  /** Only instances a call activity of this instance started. */
  parentId?: string | undefined;
  startedAfter?: Date | undefined;
  startedBefore?: Date | undefined;
  endedAfter?: Date | undefined;
  endedBefore?: Date | undefined;
  variables?: readonly VariableCondition[] | undefined;
}

/** How an instance query is ordered and cut. */
export interface InstanceQueryPage {
  sortBy:
    | 'id'
    | 'definitionKey'
    | 'definitionId'
    | 'businessKey'
    | 'tenantId'
    | 'startedAt'
    | 'endedAt'
    | 'duration';
  descending: boolean;
  offset: number;
  limit: number;
}

/** An instance of a query, with its org's slug and its definition's name and version. */
export interface QueriedInstance extends InstanceRecord {
  tenant_id: string;
  definition_name: string;
  definition_version: number | null;
}

function variableConditionSql(
  condition: VariableCondition,
  param: (value: unknown, type: string) => string,
): string {
  // Every parameter pushed must be used by the SQL returned: Postgres cannot type an unused one.
  const name = param(condition.name, 'text');
  const value = `i.variables -> ${name}`;
  const text = `i.variables ->> ${name}`;
  const numeric = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(condition.value);
  const typed: unknown = numeric
    ? Number(condition.value)
    : condition.value === 'true' || condition.value === 'false'
      ? condition.value === 'true'
      : condition.value;
  const equal = () =>
    `(${value} = ${param(JSON.stringify(typed), 'jsonb')} OR ${value} = ${param(JSON.stringify(condition.value), 'jsonb')})`;
  const compare = (operator: string) =>
    numeric
      ? `(jsonb_typeof(${value}) = 'number' AND (${text})::numeric ${operator} ${param(condition.value, 'numeric')})`
      : `(jsonb_typeof(${value}) = 'string' AND ${text} ${operator} ${param(condition.value, 'text')})`;
  switch (condition.op) {
    case 'eq':
      return equal();
    case 'neq':
      return `(${value} IS NOT NULL AND NOT ${equal()})`;
    case 'gt':
      return compare('>');
    case 'gteq':
      return compare('>=');
    case 'lt':
      return compare('<');
    case 'lteq':
      return compare('<=');
    case 'like':
      return `(jsonb_typeof(${value}) = 'string' AND ${text} LIKE ${param(condition.value, 'text')})`;
  }
}

function instanceQuerySql(query: InstanceQuery, values: unknown[]): string {
  const param = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const where: string[] = [];
  if (query.orgIds !== undefined) where.push(`i.org_id = ANY(${param(query.orgIds, 'uuid[]')})`);
  if (query.ids !== undefined) where.push(`i.id = ANY(${param(query.ids, 'uuid[]')})`);
  if (query.businessKey !== undefined) where.push(`i.business_key = ${param(query.businessKey, 'text')}`);
  if (query.businessKeyLike !== undefined)
    where.push(`i.business_key LIKE ${param(query.businessKeyLike, 'text')}`);
  if (query.definitionIds !== undefined)
    where.push(`i.definition_id = ANY(${param(query.definitionIds, 'uuid[]')})`);
  if (query.definitionKeys !== undefined)
    where.push(`i.process_key = ANY(${param(query.definitionKeys, 'text[]')})`);
  if (query.open !== undefined) where.push(`i.ended_at IS ${query.open ? '' : 'NOT '}NULL`);
  if (query.suspended !== undefined) where.push(`${query.suspended ? '' : 'NOT '}i.suspended`);
  if (query.withIncident !== undefined)
    where.push(
      `${query.withIncident ? '' : 'NOT '}EXISTS (SELECT 1 FROM incidents n
         WHERE n.process_instance_id = i.id AND n.resolved_at IS NULL)`,
    );
  if (query.states !== undefined) where.push(`i.state = ANY(${param(query.states, 'text[]')})`);
  if (query.parentId !== undefined) where.push(`i.parent_instance_id = ${param(query.parentId, 'uuid')}`);
  if (query.startedAfter !== undefined)
    where.push(`i.started_at > ${param(query.startedAfter, 'timestamptz')}`);
  if (query.startedBefore !== undefined)
    where.push(`i.started_at < ${param(query.startedBefore, 'timestamptz')}`);
  if (query.endedAfter !== undefined) where.push(`i.ended_at > ${param(query.endedAfter, 'timestamptz')}`);
  if (query.endedBefore !== undefined) where.push(`i.ended_at < ${param(query.endedBefore, 'timestamptz')}`);
  for (const condition of query.variables ?? []) where.push(variableConditionSql(condition, param));
  return where.length === 0 ? 'true' : where.join(' AND ');
}

const instanceOrder: Record<InstanceQueryPage['sortBy'], string> = {
  id: 'i.id',
  definitionKey: 'i.process_key',
  definitionId: 'i.definition_id',
  businessKey: 'i.business_key',
  tenantId: 'o.slug',
  startedAt: 'i.started_at',
  endedAt: 'i.ended_at',
  duration: '(i.ended_at - i.started_at)',
};

/** A page of instances matching a query. */
export async function queryInstances(
  db: Pool | PoolClient,
  query: InstanceQuery,
  page: InstanceQueryPage,
): Promise<QueriedInstance[]> {
  const values: unknown[] = [];
  const where = instanceQuerySql(query, values);
  const direction = page.descending ? 'DESC' : 'ASC';
  values.push(page.limit, page.offset);
  const { rows } = await db.query<
    InstanceRow & { tenant_id: string; definition_name: string; definition_version: number | null }
  >(
    `SELECT ${updatedInstanceColumns}, o.slug AS tenant_id, d.name AS definition_name, d.version AS definition_version
     FROM process_instances i
     JOIN orgs o ON o.id = i.org_id
     JOIN process_definitions d ON d.id = i.definition_id
     WHERE ${where}
     ORDER BY ${instanceOrder[page.sortBy]} ${direction} NULLS LAST, i.id ${direction}
     LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
  );
  return rows.map(({ tenant_id, definition_name, definition_version, ...row }) => ({
    ...toInstanceRecord(row),
    tenant_id,
    definition_name,
    definition_version,
  }));
}

/** How many instances match a query. */
export async function countQueriedInstances(db: Pool | PoolClient, query: InstanceQuery): Promise<number> {
  const values: unknown[] = [];
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM process_instances i WHERE ${instanceQuerySql(query, values)}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}
