import { notSuspended } from './not-suspended.js';
import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { Variables, Wait } from '../runtime/index.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type WaitRows,
  type MovedRows,
} from './set-wise-write.js';

/*
 * `external_tasks`: the open waits of service tasks that external workers fetch, lock and complete.
 */

/** An external task wait: what becomes a row of `external_tasks`. */
export type ExternalTaskWait = Extract<Wait, { kind: 'externalTask' }>;

/** The engine's insert of the external tasks its calls opened. */
export const externalTaskInserts: InsertRows<ExternalTaskWait> = {
  cte: 'new_external',
  table: 'external_tasks',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    itemColumn('id', 'uuid', (wait) => wait.waitId),
    itemColumn('activity_id', 'text', (wait) => wait.elementId),
    itemColumn('topic', 'text', (wait) => wait.topic),
    itemColumn('variables', 'jsonb', (wait) => JSON.stringify(wait.variables)),
    itemColumn('retries', 'int', (wait) => wait.retries),
  ],
};

/** The rows of external tasks kept by a migration, pointed at their new element. */
export const externalTaskMoves: MovedRows = {
  cte: 'moved_external',
  table: 'external_tasks',
  idColumn: 'id',
  elementColumn: 'activity_id',
};

/** The engine's delete of the external tasks its calls closed. */
export const externalTaskWaits: WaitRows = {
  cte: 'closed_external',
  table: 'external_tasks',
  waitColumn: 'id',
};

/**
 * SQL that holds while the worker `workerIdSql` holds a live lock at `nowSql` on the task `taskIdSql`:
 * the condition of an instance's write that completes (or fails) the task, checked in its statement.
 */
export function taskHeld(taskIdSql: string, workerIdSql: string, nowSql: string): string {
  return `EXISTS (SELECT 1 FROM external_tasks t
                                        WHERE t.id = ${taskIdSql} AND t.worker_id = ${workerIdSql} AND t.lock_expires_at > ${nowSql})`;
}

/** A locked task as a worker receives it. */
export interface LockedTask {
  id: string;
  topic_name: string;
  process_instance_id: string;
  activity_id: string;
  variables: Variables;
  retries: number;
  lock_expires_at: string;
  org_id: string;
}

/** The stored lock of a task. */
export interface TaskLock {
  id: string;
  process_instance_id: string;
  worker_id: string | null;
  lock_expires_at: Date | null;
  retries: number;
}

/**
 * Locks up to `maxTasks` fetchable tasks of the topics for a worker, oldest first. Rows locked by
 * a concurrent fetch are skipped, so two workers never receive the same task. With `orgIds`, only
 * tasks of those orgs (a statement of its own, so the unscoped one keeps its plan).
 */
export async function lockTasks(
  db: Pool,
  input: {
    workerId: string;
    maxTasks: number;
    topics: { name: string; lockMs: number; filter?: TopicFilter | undefined }[];
    now: Date;
    orgIds?: readonly string[] | undefined;
    /** Newest tasks first (the oldest by default). */
    newestFirst?: boolean | undefined;
  },
): Promise<LockedTask[]> {
  if (input.newestFirst === true || input.topics.some((topic) => topic.filter !== undefined))
    return lockFilteredTasks(db, input);
  const scoped = input.orgIds !== undefined;
  const values: unknown[] = [
    input.workerId,
    input.topics.map((topic) => topic.name),
    input.topics.map((topic) => topic.lockMs),
    input.now,
    input.maxTasks,
  ];
  if (scoped) values.push(input.orgIds);
  const { rows } = await db.query<Omit<LockedTask, 'lock_expires_at'> & { lock_expires_at: Date }>({
    name: scoped ? 'workflow.external-tasks.lock-in-orgs' : 'workflow.external-tasks.lock',
    text: `WITH wanted AS (
             SELECT * FROM unnest($2::text[], $3::int[]) AS w(topic, lock_ms)
           ),
           candidates AS (
             SELECT t.id FROM external_tasks t
             WHERE t.topic IN (SELECT topic FROM wanted)
               AND t.retries > 0 AND t.due_at <= $4
               AND (t.lock_expires_at IS NULL OR t.lock_expires_at <= $4)
               AND ${notSuspended('t.process_instance_id')}
               ${scoped ? 'AND t.org_id = ANY($6::uuid[])' : ''}
             ORDER BY t.created_at, t.id
             LIMIT $5
             FOR UPDATE SKIP LOCKED
           )
           UPDATE external_tasks t
           SET worker_id = $1, lock_expires_at = $4::timestamptz + make_interval(secs => w.lock_ms::float8 / 1000)
           FROM candidates c, wanted w
           WHERE t.id = c.id AND w.topic = t.topic
           RETURNING t.id, t.topic AS topic_name, t.process_instance_id, t.activity_id, t.variables,
                     t.retries, t.lock_expires_at, t.org_id`,
    values,
  });
  return rows.map((row) => ({ ...row, lock_expires_at: row.lock_expires_at.toISOString() }));
}

/**
 * What a topic of a fetch may also ask of its tasks' instances (the Camunda 7 fetch filters). A
 * field left out does not filter; `variables` holds when the instance's variables contain each of
 * its entries with an equal value.
 */
export interface TopicFilter {
  businessKey?: string | undefined;
  definitionIds?: readonly string[] | undefined;
  definitionKeys?: readonly string[] | undefined;
  orgIds?: readonly string[] | undefined;
  variables?: Variables | undefined;
}

type LockInput = Parameters<typeof lockTasks>[1];

/**
 * lockTasks with per-topic filters on the task's instance, or newest first: a statement of its own,
 * so the plain fetch keeps its plan. The topics travel as one JSON array of rows.
 */
async function lockFilteredTasks(db: Pool, input: LockInput): Promise<LockedTask[]> {
  const scoped = input.orgIds !== undefined;
  const wanted = input.topics.map((topic) => ({
    topic: topic.name,
    lock_ms: topic.lockMs,
    business_key: topic.filter?.businessKey ?? null,
    definition_ids: topic.filter?.definitionIds ?? null,
    definition_keys: topic.filter?.definitionKeys ?? null,
    org_ids: topic.filter?.orgIds ?? null,
    variables: topic.filter?.variables ?? null,
  }));
  const values: unknown[] = [input.workerId, JSON.stringify(wanted), input.now, input.maxTasks];
  if (scoped) values.push(input.orgIds);
  const order = input.newestFirst === true ? 'DESC' : 'ASC';
  const { rows } = await db.query<Omit<LockedTask, 'lock_expires_at'> & { lock_expires_at: Date }>({
    name: `workflow.external-tasks.lock-filtered-${order.toLowerCase()}${scoped ? '-in-orgs' : ''}`,
    text: `WITH wanted AS (
             SELECT * FROM jsonb_to_recordset($2::jsonb) AS w(
               topic text, lock_ms int, business_key text, definition_ids uuid[], definition_keys text[],
               org_ids uuid[], variables jsonb)
           ),
           candidates AS (
             SELECT t.id FROM external_tasks t
             JOIN process_instances pi ON pi.id = t.process_instance_id
             WHERE t.topic IN (SELECT topic FROM wanted)
               AND t.retries > 0 AND t.due_at <= $3
               AND (t.lock_expires_at IS NULL OR t.lock_expires_at <= $3)
               AND NOT pi.suspended
               ${scoped ? 'AND t.org_id = ANY($5::uuid[])' : ''}
               AND EXISTS (
                 SELECT 1 FROM wanted w
                 WHERE w.topic = t.topic
                   AND (w.business_key IS NULL OR pi.business_key = w.business_key)
                   AND (w.definition_ids IS NULL OR pi.definition_id = ANY(w.definition_ids))
                   AND (w.definition_keys IS NULL OR pi.process_key = ANY(w.definition_keys))
                   AND (w.org_ids IS NULL OR t.org_id = ANY(w.org_ids))
                   AND (w.variables IS NULL OR pi.variables @> w.variables))
             ORDER BY t.created_at ${order}, t.id ${order}
             LIMIT $4
             FOR UPDATE OF t SKIP LOCKED
           ),
           lock_of AS (
             SELECT DISTINCT ON (topic) topic, lock_ms FROM wanted
           )
           UPDATE external_tasks t
           SET worker_id = $1, lock_expires_at = $3::timestamptz + make_interval(secs => w.lock_ms::float8 / 1000)
           FROM candidates c, lock_of w
           WHERE t.id = c.id AND w.topic = t.topic
           RETURNING t.id, t.topic AS topic_name, t.process_instance_id, t.activity_id, t.variables,
                     t.retries, t.lock_expires_at, t.org_id`,
    values,
  });
  return rows.map((row) => ({ ...row, lock_expires_at: row.lock_expires_at.toISOString() }));
}

/** The org a task belongs to, or null when there is no such task (it never changes org). */
export async function taskOrgId(db: Pool | PoolClient, taskId: string): Promise<string | null> {
  const { rows } = await db.query<{ org_id: string }>({
    name: 'workflow.external-tasks.org-of',
    text: 'SELECT org_id FROM external_tasks WHERE id = $1',
    values: [taskId],
  });
  return rows[0]?.org_id ?? null;
}

/** The instance a task belongs to, read without a lock (it never changes). */
export async function taskInstanceId(db: Pool | PoolClient, taskId: string): Promise<string | null> {
  const { rows } = await db.query<{ process_instance_id: string }>({
    name: 'workflow.external-tasks.instance-of',
    text: 'SELECT process_instance_id FROM external_tasks WHERE id = $1',
    values: [taskId],
  });
  return rows[0]?.process_instance_id ?? null;
}

/** A task's instance and lock, read without locking the row. */
export async function readTaskLock(db: Pool | PoolClient, taskId: string): Promise<TaskLock | null> {
  const { rows } = await db.query<TaskLock>({
    name: 'workflow.external-tasks.read-lock',
    text: 'SELECT id, process_instance_id, worker_id, lock_expires_at, retries FROM external_tasks WHERE id = $1',
    values: [taskId],
  });
  return rows[0] ?? null;
}

/** Locks a task row for an update of the task alone (a failure with retries left). */
export async function lockTaskRow(client: PoolClient, taskId: string): Promise<TaskLock | null> {
  const { rows } = await client.query<TaskLock>({
    name: 'workflow.external-tasks.lock-row',
    text: 'SELECT id, process_instance_id, worker_id, lock_expires_at, retries FROM external_tasks WHERE id = $1 FOR UPDATE',
    values: [taskId],
  });
  return rows[0] ?? null;
}

/**
 * Records a failed attempt with retries left: unlocked, fetchable again after the retry timeout.
 * False (nothing written) when the task's instance is suspended.
 */
export async function scheduleRetry(
  client: PoolClient,
  input: { taskId: string; retries: number; retryTimeoutMs: number; errorMessage: string; now: Date },
): Promise<boolean> {
  const outcome = await client.query(
    `UPDATE external_tasks
     SET retries = $2, due_at = $5::timestamptz + make_interval(secs => $3::float8 / 1000), error_message = $4,
         worker_id = NULL, lock_expires_at = NULL
     WHERE id = $1 AND ${notSuspended('external_tasks.process_instance_id')}`,
    [input.taskId, input.retries, input.retryTimeoutMs, input.errorMessage, input.now],
  );
  return (outcome.rowCount ?? 0) > 0;
}

/** Extends the lock of a task held by `workerId`; false when the worker does not hold a live lock. */
export async function extendLock(
  db: Pool,
  input: { taskId: string; workerId: string; durationMs: number; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE external_tasks SET lock_expires_at = $4::timestamptz + make_interval(secs => $3::float8 / 1000)
     WHERE id = $1 AND worker_id = $2 AND lock_expires_at > $4`,
    [input.taskId, input.workerId, input.durationMs, input.now],
  );
  return rowCount === 1;
}

/** Releases a task's lock; false when there is no such task. */
export async function unlock(db: Pool, taskId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE external_tasks SET worker_id = NULL, lock_expires_at = NULL WHERE id = $1',
    [taskId],
  );
  return rowCount === 1;
}

/** Which external tasks a list or count selects; every field left out selects all. */
export interface ExternalTaskQuery {
  ids?: readonly string[] | undefined;
  topic?: string | undefined;
  workerId?: string | undefined;
  /** True: locked now; false: not locked now. */
  locked?: boolean | undefined;
  processInstanceId?: string | undefined;
  activityId?: string | undefined;
  /** True: retries left; false: none left (the task has an incident). */
  retriesLeft?: boolean | undefined;
  /** Only tasks of these orgs. */
  orgIds?: readonly string[] | undefined;
  now: Date;
}

/** An external task with what its instance, definition and org say about it. */
export interface ExternalTaskDetails {
  id: string;
  topic: string;
  worker_id: string | null;
  lock_expires_at: Date | null;
  retries: number;
  error_message: string | null;
  activity_id: string;
  process_instance_id: string;
  org_id: string;
  org_slug: string | null;
  created_at: Date;
  business_key: string | null;
  definition_id: string | null;
  process_key: string | null;
  suspended: boolean;
}

function externalTaskWhere(query: ExternalTaskQuery, values: unknown[]): string {
  const conditions: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.ids !== undefined) conditions.push(`t.id = ANY(${param(query.ids)}::uuid[])`);
  if (query.topic !== undefined) conditions.push(`t.topic = ${param(query.topic)}`);
  if (query.workerId !== undefined) conditions.push(`t.worker_id = ${param(query.workerId)}`);
  if (query.locked === true) conditions.push(`t.lock_expires_at > ${param(query.now)}`);
  if (query.locked === false)
    conditions.push(`(t.lock_expires_at IS NULL OR t.lock_expires_at <= ${param(query.now)})`);
  if (query.processInstanceId !== undefined)
    conditions.push(`t.process_instance_id = ${param(query.processInstanceId)}`);
  if (query.activityId !== undefined) conditions.push(`t.activity_id = ${param(query.activityId)}`);
  if (query.retriesLeft === true) conditions.push('t.retries > 0');
  if (query.retriesLeft === false) conditions.push('t.retries = 0');
  if (query.orgIds !== undefined) conditions.push(`t.org_id = ANY(${param(query.orgIds)}::uuid[])`);
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}

/** External tasks with their instance's details, oldest first, a page at a time. */
export async function listExternalTasks(
  db: Pool,
  query: ExternalTaskQuery,
  page: { offset: number; limit: number },
): Promise<ExternalTaskDetails[]> {
  const values: unknown[] = [];
  const where = externalTaskWhere(query, values);
  values.push(page.offset, page.limit);
  const { rows } = await db.query<ExternalTaskDetails>(
    `SELECT t.id, t.topic, t.worker_id, t.lock_expires_at, t.retries, t.error_message, t.activity_id,
            t.process_instance_id, t.org_id, o.slug AS org_slug, t.created_at, pi.business_key,
            pi.definition_id, pi.process_key, coalesce(pi.suspended, false) AS suspended
     FROM external_tasks t
     LEFT JOIN process_instances pi ON pi.id = t.process_instance_id
     LEFT JOIN orgs o ON o.id = t.org_id
     ${where}
     ORDER BY t.created_at, t.id
     OFFSET $${values.length - 1} LIMIT $${values.length}`,
    values,
  );
  return rows;
}

/** How many external tasks a query selects. */
export async function countExternalTasks(db: Pool, query: ExternalTaskQuery): Promise<number> {
  const values: unknown[] = [];
  const where = externalTaskWhere(query, values);
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM external_tasks t ${where}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}
