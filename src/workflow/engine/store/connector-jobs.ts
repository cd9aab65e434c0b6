import { notSuspended } from './not-suspended.js';
import type { Queryable } from '../../../platform/database/queryable.js';
import { claimDueSql } from '../../../platform/jobs/claim-due-sql.js';
import { failedAttemptSql } from '../../../platform/jobs/failed-attempt-sql.js';
import type { ScriptWait } from '../runtime/index.js';
import type { ExtensionJobPolicy } from './extension-jobs.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type WaitRows,
  type MovedRows,
} from './set-wise-write.js';

/*
 * `connector_jobs`: script waits still open when an engine call is written (pipelines answer at
 * once) are jobs the connector executor claims, runs and retries later.
 */

/** A connector job to write: its wait and the retry policy its extension element declares. */
export interface NewConnectorJob {
  wait: ScriptWait;
  policy: ExtensionJobPolicy;
}

/** The engine's insert of the connector jobs its calls opened, due at once. */
export const connectorJobInserts: InsertRows<NewConnectorJob> = {
  cte: 'new_connector_jobs',
  table: 'connector_jobs',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    effectColumns.now,
    itemColumn('wait_id', 'uuid', (job) => job.wait.waitId),
    itemColumn('element_id', 'text', (job) => job.wait.elementId),
    itemColumn('connector', 'text', (job) => job.wait.extension.name),
    itemColumn('retries', 'int', (job) => job.policy.retries),
    itemColumn('backoff_ms', 'int', (job) => job.policy.backoffMs),
    itemColumn('max_backoff_ms', 'int', (job) => job.policy.maxBackoffMs),
  ],
  computed: { due_at: 'r.now', created_at: 'r.now' },
};

/** The rows of connector jobs kept by a migration, pointed at their new element. */
export const connectorJobMoves: MovedRows = {
  cte: 'moved_connector_jobs',
  table: 'connector_jobs',
  idColumn: 'wait_id',
  elementColumn: 'element_id',
};

/** The engine's delete of the connector jobs of the waits its calls closed. */
export const connectorJobWaits: WaitRows = {
  cte: 'closed_connector_jobs',
  table: 'connector_jobs',
  waitColumn: 'wait_id',
};

/** One connector job: a row of `connector_jobs`, waiting on an engine wait. */
export interface ConnectorJob {
  id: string;
  orgId: string;
  processInstanceId: string;
  waitId: string;
  elementId: string;
  connector: string;
  dueAt: Date;
  retries: number;
  attempts: number;
}

interface ConnectorJobRow {
  id: string;
  org_id: string;
  process_instance_id: string;
  wait_id: string;
  element_id: string;
  connector: string;
  due_at: Date;
  retries: number;
  attempts: number;
}

const toJob = (row: ConnectorJobRow): ConnectorJob => ({
  id: row.id,
  orgId: row.org_id,
  processInstanceId: row.process_instance_id,
  waitId: row.wait_id,
  elementId: row.element_id,
  connector: row.connector,
  dueAt: row.due_at,
  retries: row.retries,
  attempts: row.attempts,
});

/** Locks up to `limit` due jobs with attempts left, earliest first, skipping rows others hold. */
export async function claimDueConnectorJobs(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<ConnectorJob[]> {
  const { rows } = await db.query<ConnectorJobRow>({
    name: 'workflow.connectors.claim',
    text: claimDueSql(
      'connector_jobs',
      'id, org_id, process_instance_id, wait_id, element_id, connector, due_at, retries, attempts',
      'due_at',
      notSuspended('connector_jobs.process_instance_id'),
    ),
    values: [now, limit],
  });
  return rows.map(toJob);
}

/** Deletes a job that is done (the engine's write usually deleted it already with its wait). */
export async function deleteConnectorJob(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'workflow.connectors.delete',
    text: `DELETE FROM connector_jobs WHERE id = $1`,
    values: [id],
  });
}

/**
 * Records a failed attempt: one retry fewer and, while some are left, due again after the job's
 * backoff, `min(max_backoff_ms, backoff_ms × 2^(attempts so far))`, computed here. With `keepOne`
 * the count stops at 1. Returns the retries left.
 */
export async function recordConnectorFailure(
  db: Queryable,
  id: string,
  message: string,
  now: Date,
  keepOne: boolean,
): Promise<number> {
  const { rows } = await db.query<{ retries: number }>({
    name: 'workflow.connectors.fail',
    text: failedAttemptSql('connector_jobs', { baseMs: 'backoff_ms', maxMs: 'max_backoff_ms' }),
    values: [id, message.slice(0, 4000), now, keepOne ? 1 : 0],
  });
  return rows[0]?.retries ?? 0;
}
