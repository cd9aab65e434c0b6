import type { Wait } from '../runtime/index.js';
import { effectColumns, itemColumn, type InsertRows, type WaitRows } from './set-wise-write.js';

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

/** The engine's delete of the user tasks its calls closed. */
export const userTaskWaits: WaitRows = { cte: 'closed_user', table: 'user_tasks', waitColumn: 'id' };
