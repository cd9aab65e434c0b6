import type { Wait } from '../runtime/index.js';
import { effectColumns, itemColumn, type InsertRows, type WaitRows } from './set-wise-write.js';

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
