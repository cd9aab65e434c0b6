import type { Pool, PoolClient } from '../../platform/database/pool.js';
import {
  storedInstanceColumns,
  toStoredInstance,
  type StoredInstance,
  type StoredInstanceRow,
} from '../engine/store/process-instances.js';
import type { Variables } from '../engine/runtime/index.js';

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
    topics: { name: string; lockMs: number }[];
    now: Date;
    orgIds?: readonly string[] | undefined;
  },
): Promise<LockedTask[]> {
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

/** Locks a task row for an update of the task alone (a failure with retries left). */
export async function lockTaskRow(client: PoolClient, taskId: string): Promise<TaskLock | null> {
  const { rows } = await client.query<TaskLock>({
    name: 'workflow.external-tasks.lock-row',
    text: 'SELECT id, process_instance_id, worker_id, lock_expires_at, retries FROM external_tasks WHERE id = $1 FOR UPDATE',
    values: [taskId],
  });
  return rows[0] ?? null;
}

/** Records a failed attempt with retries left: unlocked, fetchable again after the retry timeout. */
export async function scheduleRetry(
  client: PoolClient,
  input: { taskId: string; retries: number; retryTimeoutMs: number; errorMessage: string; now: Date },
): Promise<void> {
  await client.query(
    `UPDATE external_tasks
     SET retries = $2, due_at = $5::timestamptz + make_interval(secs => $3::float8 / 1000), error_message = $4,
         worker_id = NULL, lock_expires_at = NULL
     WHERE id = $1`,
    [input.taskId, input.retries, input.retryTimeoutMs, input.errorMessage, input.now],
  );
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
