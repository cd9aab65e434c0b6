import type { Pool } from '../../../platform/database/pool.js';
import type { Wait } from '../runtime/index.js';
import type { Tagged } from './tagged-rows.js';
import { unnestParams, type StatementBuilder } from './write-statement.js';
import {
  effectColumns,
  type RowGuard,
  itemColumn,
  type InsertRows,
  type WaitRows,
  type MovedRows,
} from './set-wise-write.js';

/*
 * `user_tasks`: the open waits of user tasks, listed and completed by people.
 */

/** A user task wait: what becomes a row of `user_tasks`. */
export type UserTaskWait = Extract<Wait, { kind: 'userTask' }>;

/** The engine's insert of the user tasks its calls opened. */
export const userTaskInserts: InsertRows<UserTaskWait> = {
  cte: 'new_user',
  table: 'user_tasks',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    itemColumn('id', 'uuid', (wait) => wait.waitId),
    itemColumn('activity_id', 'text', (wait) => wait.elementId),
    itemColumn('name', 'text', (wait) => wait.name),
    itemColumn('assignee', 'text', (wait) => wait.assignee),
    { ...itemColumn('groups', 'jsonb', (wait) => JSON.stringify(wait.candidateGroups)), stored: false },
    itemColumn('variables', 'jsonb', (wait) => JSON.stringify(wait.variables)),
  ],
  computed: { candidate_groups: 'ARRAY(SELECT jsonb_array_elements_text(r.groups))' },
};

/** The rows of user tasks kept by a migration, pointed at their new element. */
export const userTaskMoves: MovedRows = {
  cte: 'moved_user',
  table: 'user_tasks',
  idColumn: 'id',
  elementColumn: 'activity_id',
};

/** The engine's delete of the user tasks its calls closed. */
export const userTaskWaits: WaitRows = { cte: 'closed_user', table: 'user_tasks', waitColumn: 'id' };

/**
 * Adds the update of the assignees of open user tasks (claims and unclaims applied by the engine,
 * after their assignment listeners) to `statement`; the last change of a task wins.
 */
export function assignUserTasks(
  statement: StatementBuilder,
  guard: RowGuard,
  changes: readonly Tagged<{ waitId: string; assignee: string | null }>[],
): void {
  if (changes.length === 0) return;
  const last = new Map(changes.map((change) => [change.item.waitId, change]));
  const rows = unnestParams(statement, [
    [[...last.values()].map((row) => row.instanceId), 'uuid'],
    [[...last.values()].map((row) => row.item.waitId), 'uuid'],
    [[...last.values()].map((row) => row.item.assignee), 'text'],
  ]);
  statement.with(
    'assigned_user',
    `UPDATE user_tasks t SET assignee = a.assignee
     FROM ${rows} AS a(instance_id, id, assignee)
     WHERE t.id = a.id AND t.process_instance_id = a.instance_id${guard.and('a.instance_id')}`,
  );
}

/** An open user task. */
export interface UserTaskRecord {
  id: string;
  org_id: string;
  process_instance_id: string;
  activity_id: string;
  name: string | null;
  assignee: string | null;
  candidate_groups: string[];
  variables: Record<string, unknown>;
  created_at: string;
}

/** Which open tasks of an org to list, and which page. */
export interface UserTaskFilter {
  orgId: string;
  assignee?: string | undefined;
  unassigned?: boolean | undefined;
  processInstanceId?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** Open tasks of an org, oldest first (a page of at most 1,000), optionally by assignee or instance. */
export async function listOpenUserTasks(db: Pool, filter: UserTaskFilter): Promise<UserTaskRecord[]> {
  const { rows } = await db.query<Omit<UserTaskRecord, 'created_at'> & { created_at: Date }>(
    `SELECT id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, variables, created_at
       FROM user_tasks
       WHERE org_id = $1 AND ($2::text IS NULL OR assignee = $2) AND ($3::uuid IS NULL OR process_instance_id = $3)
         AND (NOT $4::boolean OR assignee IS NULL)
       ORDER BY created_at, id LIMIT $5 OFFSET $6`,
    [
      filter.orgId,
      filter.assignee ?? null,
      filter.processInstanceId ?? null,
      filter.unassigned === true,
      Math.min(Math.max(filter.limit ?? 1000, 1), 1000),
      filter.offset ?? 0,
    ],
  );
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
}

/** Where an open task sits in its model: its element and its instance's definition; null when gone. */
export async function findUserTaskSite(
  db: Pool,
  taskId: string,
): Promise<{ activity_id: string; definition_id: string } | null> {
  const { rows } = await db.query<{ activity_id: string; definition_id: string }>(
    `SELECT t.activity_id, i.definition_id FROM user_tasks t
       JOIN process_instances i ON i.id = t.process_instance_id WHERE t.id = $1`,
    [taskId],
  );
  return rows[0] ?? null;
}

/** The org, instance and assignee of an open task; null when there is no such open task. */
export async function findUserTask(
  db: Pool,
  taskId: string,
): Promise<{ org_id: string; process_instance_id: string; assignee: string | null } | null> {
  const { rows } = await db.query<{ org_id: string; process_instance_id: string; assignee: string | null }>(
    'SELECT org_id, process_instance_id, assignee FROM user_tasks WHERE id = $1',
    [taskId],
  );
  return rows[0] ?? null;
}

/** An open task with what its form needs: the form key from the model and the definition's XML. */
export interface UserTaskDetailsRecord extends UserTaskRecord {
  process_key: string;
  form_key: string | null;
  xml: string | null;
}

/** One open task with its process key, form key and (for an embedded form) the definition XML; null when there is none. */
export async function findUserTaskDetails(db: Pool, taskId: string): Promise<UserTaskDetailsRecord | null> {
  const { rows } = await db.query<Omit<UserTaskDetailsRecord, 'created_at'> & { created_at: Date }>(
    `SELECT t.id, t.org_id, t.process_instance_id, t.activity_id, t.name, t.assignee, t.candidate_groups,
            t.variables, t.created_at, d.process_key, d.model->'elements'->t.activity_id->>'formKey' AS form_key,
            -- Only an embedded form is read from the document: other tasks do not load it.
            CASE WHEN d.model->'elements'->t.activity_id->>'formKey' LIKE 'camunda-forms:bpmn:%'
                 THEN d.xml END AS xml
       FROM user_tasks t
       JOIN process_instances i ON i.id = t.process_instance_id
       JOIN process_definitions d ON d.id = i.definition_id
       WHERE t.id = $1`,
    [taskId],
  );
  const row = rows[0];
  return row ? { ...row, created_at: row.created_at.toISOString() } : null;
}

/**
 * Sets the assignee of an open task when it has none or already has `assignee` (a claim), or clears
 * it (`assignee` null, an unclaim). False when the task is gone or held by someone else.
 */
export async function setUserTaskAssignee(
  db: Pool,
  taskId: string,
  assignee: string | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE user_tasks SET assignee = $2
       WHERE id = $1 AND ($2::text IS NULL OR assignee IS NULL OR assignee = $2)`,
    [taskId, assignee],
  );
  return (rowCount ?? 0) > 0;
}
