import type { Pool } from '../../../platform/database/pool.js';
import type { FormReference } from '../model/index.js';
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
    { ...itemColumn('users', 'jsonb', (wait) => JSON.stringify(wait.candidateUsers)), stored: false },
    itemColumn('variables', 'jsonb', (wait) => JSON.stringify(wait.variables)),
  ],
  computed: {
    candidate_groups: 'ARRAY(SELECT jsonb_array_elements_text(r.groups))',
    candidate_users: 'ARRAY(SELECT jsonb_array_elements_text(r.users))',
  },
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
  candidate_users: string[];
  variables: Record<string, unknown>;
  created_at: string;
}

/** Which open tasks of an org to list, and which page. */
export interface UserTaskFilter {
  orgId: string;
  assignee?: string | undefined;
  unassigned?: boolean | undefined;
  processInstanceId?: string | undefined;
  /** Tasks with any of these among their candidate groups (exact names). */
  candidateGroups?: readonly string[] | undefined;
  /** Tasks with this among their candidate users, in any case (weft users are emails). */
  candidateUser?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/**
 * Open tasks of an org, oldest first (a page of at most 1,000), optionally by assignee, instance,
 * candidate groups or candidate user.
 */
export async function listOpenUserTasks(db: Pool, filter: UserTaskFilter): Promise<UserTaskRecord[]> {
  const { rows } = await db.query<Omit<UserTaskRecord, 'created_at'> & { created_at: Date }>(
    `SELECT id, org_id, process_instance_id, activity_id, name, assignee, candidate_groups, candidate_users,
            variables, created_at
       FROM user_tasks
       WHERE org_id = $1 AND ($2::text IS NULL OR assignee = $2) AND ($3::uuid IS NULL OR process_instance_id = $3)
         AND (NOT $4::boolean OR assignee IS NULL)
         AND ($7::text[] IS NULL OR candidate_groups && $7)
         AND ($8::text IS NULL OR EXISTS (SELECT 1 FROM unnest(candidate_users) u WHERE lower(u) = lower($8)))
       ORDER BY created_at, id LIMIT $5 OFFSET $6`,
    [
      filter.orgId,
      filter.assignee ?? null,
      filter.processInstanceId ?? null,
      filter.unassigned === true,
      Math.min(Math.max(filter.limit ?? 1000, 1), 1000),
      filter.offset ?? 0,
      filter.candidateGroups ?? null,
      filter.candidateUser ?? null,
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

/** An open task with what its form needs: its definition and the form key and reference of its model. */
export interface UserTaskDetailsRecord extends UserTaskRecord {
  process_key: string;
  definition_id: string;
  form_key: string | null;
  form_ref: FormReference | null;
}

/** One open task with its process key, definition, form key and form reference; null when there is none. */
export async function findUserTaskDetails(db: Pool, taskId: string): Promise<UserTaskDetailsRecord | null> {
  const { rows } = await db.query<Omit<UserTaskDetailsRecord, 'created_at'> & { created_at: Date }>(
    `SELECT t.id, t.org_id, t.process_instance_id, t.activity_id, t.name, t.assignee, t.candidate_groups,
            t.candidate_users, t.variables, t.created_at, d.process_key, i.definition_id,
            d.model->'elements'->t.activity_id->>'formKey' AS form_key,
            d.model->'elements'->t.activity_id->'formRef' AS form_ref
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

/*
 * The Camunda task query (GET /engine-rest/task): open tasks with their instance, definition, org
 * slug and the assignment fields that only the instance's wait keeps (due and follow-up dates).
 */

/** Filters of the Camunda task query; each one given narrows the selection. */
export interface UserTaskQuery {
  /** The orgs the caller may read; undefined for all. */
  orgIds?: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
  processInstanceIds?: readonly string[] | undefined;
  businessKey?: string | undefined;
  processKey?: string | undefined;
  definitionId?: string | undefined;
  activityId?: string | undefined;
  /** The assignee, in any case (weft assignees are emails). */
  assignee?: string | undefined;
  /** A LIKE pattern of the assignee (`%` and `_`), in any case. */
  assigneeLike?: string | undefined;
  /** True: assigned tasks only; false: unassigned only. */
  assigned?: boolean | undefined;
  /** A name among the task's candidate users. */
  candidateUser?: string | undefined;
  /** The assignee or a candidate user. */
  involvedUser?: string | undefined;
  /** Any of these among the task's candidate groups. */
  candidateGroups?: readonly string[] | undefined;
  /** True: with candidate groups; false: without. */
  withCandidateGroups?: boolean | undefined;
  name?: string | undefined;
  /** A LIKE pattern of the name. */
  nameLike?: string | undefined;
  dueBefore?: Date | undefined;
  dueAfter?: Date | undefined;
  followUpBefore?: Date | undefined;
  followUpAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  createdAfter?: Date | undefined;
}

/** The orders of the task query. */
export type UserTaskOrder =
  'created' | 'dueDate' | 'followUpDate' | 'name' | 'id' | 'assignee' | 'instanceId';

/** An open task as the Camunda API shows it. */
export interface UserTaskView {
  id: string;
  org_id: string;
  org_slug: string | null;
  process_instance_id: string;
  activity_id: string;
  name: string | null;
  assignee: string | null;
  candidate_groups: string[];
  candidate_users: string[];
  created_at: Date;
  definition_id: string;
  process_key: string;
  business_key: string | null;
  suspended: boolean;
  form_key: string | null;
  form_ref: FormReference | null;
  due_date: string | null;
  follow_up_date: string | null;
}

// A date the model's expression gave as text, as a timestamp when it reads as an ISO 8601 date-time.
const timestampOf = (text: string) =>
  `CASE WHEN ${text} ~ '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}(:?\\d{2})?)$'
        THEN (${text})::timestamptz END`;
const dueSql = timestampOf("w.wait->>'dueDate'");
const followUpSql = timestampOf("w.wait->>'followUpDate'");

const userTaskViewFrom = `
  FROM user_tasks t
  JOIN process_instances pi ON pi.id = t.process_instance_id
  JOIN process_definitions d ON d.id = pi.definition_id
  LEFT JOIN orgs o ON o.id = t.org_id
  CROSS JOIN LATERAL (SELECT pi.engine_state->'waits'->(t.id::text) AS wait) w`;

const userTaskViewColumns = `
  t.id, t.org_id, o.slug AS org_slug, t.process_instance_id, t.activity_id, t.name, t.assignee,
  t.candidate_groups, t.candidate_users, t.created_at,
  pi.definition_id, pi.process_key, pi.business_key, pi.suspended,
  d.model->'elements'->t.activity_id->>'formKey' AS form_key,
  d.model->'elements'->t.activity_id->'formRef' AS form_ref,
  w.wait->>'dueDate' AS due_date, w.wait->>'followUpDate' AS follow_up_date`;

function userTaskWhere(query: UserTaskQuery, values: unknown[]): string {
  const conditions: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.orgIds !== undefined) conditions.push(`t.org_id = ANY(${param(query.orgIds)}::uuid[])`);
  if (query.ids !== undefined) conditions.push(`t.id = ANY(${param(query.ids)}::uuid[])`);
  if (query.processInstanceIds !== undefined)
    conditions.push(`t.process_instance_id = ANY(${param(query.processInstanceIds)}::uuid[])`);
  if (query.businessKey !== undefined) conditions.push(`pi.business_key = ${param(query.businessKey)}`);
  if (query.processKey !== undefined) conditions.push(`pi.process_key = ${param(query.processKey)}`);
  if (query.definitionId !== undefined)
    conditions.push(`pi.definition_id = ${param(query.definitionId)}::uuid`);
  if (query.activityId !== undefined) conditions.push(`t.activity_id = ${param(query.activityId)}`);
  if (query.assignee !== undefined) conditions.push(`lower(t.assignee) = lower(${param(query.assignee)})`);
  if (query.assigneeLike !== undefined) conditions.push(`t.assignee ILIKE ${param(query.assigneeLike)}`);
  if (query.assigned === true) conditions.push('t.assignee IS NOT NULL');
  if (query.assigned === false) conditions.push('t.assignee IS NULL');
  if (query.candidateUser !== undefined)
    conditions.push(`${param(query.candidateUser)} = ANY(t.candidate_users)`);
  if (query.involvedUser !== undefined) {
    const user = param(query.involvedUser);
    conditions.push(`(lower(t.assignee) = lower(${user}) OR ${user} = ANY(t.candidate_users))`);
  }
  if (query.candidateGroups !== undefined)
    conditions.push(`t.candidate_groups && ${param(query.candidateGroups)}::text[]`);
  if (query.withCandidateGroups === true) conditions.push('cardinality(t.candidate_groups) > 0');
  if (query.withCandidateGroups === false) conditions.push('cardinality(t.candidate_groups) = 0');
  if (query.name !== undefined) conditions.push(`t.name = ${param(query.name)}`);
  if (query.nameLike !== undefined) conditions.push(`t.name LIKE ${param(query.nameLike)}`);
  if (query.dueBefore !== undefined) conditions.push(`${dueSql} < ${param(query.dueBefore)}`);
  if (query.dueAfter !== undefined) conditions.push(`${dueSql} > ${param(query.dueAfter)}`);
  if (query.followUpBefore !== undefined) conditions.push(`${followUpSql} < ${param(query.followUpBefore)}`);
  if (query.followUpAfter !== undefined) conditions.push(`${followUpSql} > ${param(query.followUpAfter)}`);
  if (query.createdBefore !== undefined) conditions.push(`t.created_at < ${param(query.createdBefore)}`);
  if (query.createdAfter !== undefined) conditions.push(`t.created_at > ${param(query.createdAfter)}`);
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}

const userTaskOrders: Record<UserTaskOrder, string> = {
  created: 't.created_at',
  dueDate: dueSql,
  followUpDate: followUpSql,
  name: 't.name',
  id: 't.id',
  assignee: 't.assignee',
  instanceId: 't.process_instance_id',
};

/** A page of open tasks a Camunda task query selects; by creation unless sorted otherwise. */
export async function queryUserTasks(
  db: Pool,
  query: UserTaskQuery,
  page: { offset: number; limit: number; order?: { by: UserTaskOrder; descending: boolean } | undefined },
): Promise<UserTaskView[]> {
  const values: unknown[] = [];
  const where = userTaskWhere(query, values);
  const direction = page.order?.descending === true ? 'DESC NULLS LAST' : 'ASC NULLS LAST';
  const order = `${userTaskOrders[page.order?.by ?? 'created']} ${direction}, t.id ${page.order?.descending === true ? 'DESC' : 'ASC'}`;
  values.push(page.offset, page.limit);
  const { rows } = await db.query<UserTaskView>(
    `SELECT ${userTaskViewColumns} ${userTaskViewFrom} ${where}
     ORDER BY ${order} OFFSET $${values.length - 1} LIMIT $${values.length}`,
    values,
  );
  return rows;
}

/** How many open tasks a Camunda task query selects. */
export async function countUserTasks(db: Pool, query: UserTaskQuery): Promise<number> {
  const values: unknown[] = [];
  const where = userTaskWhere(query, values);
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count ${userTaskViewFrom} ${where}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}

/** One open task as the Camunda API shows it, with its variables; null when there is none. */
export async function findUserTaskView(
  db: Pool,
  taskId: string,
): Promise<(UserTaskView & { variables: Record<string, unknown> }) | null> {
  const { rows } = await db.query<UserTaskView & { variables: Record<string, unknown> }>(
    `SELECT ${userTaskViewColumns}, t.variables ${userTaskViewFrom} WHERE t.id = $1`,
    [taskId],
  );
  return rows[0] ?? null;
}
