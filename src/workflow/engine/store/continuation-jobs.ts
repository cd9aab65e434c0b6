import type { Queryable } from '../../../platform/database/queryable.js';
import { claimDueSql } from '../../../platform/jobs/claim-due-sql.js';
import type { ContinuationWait } from '../runtime/index.js';
import { notSuspended } from './not-suspended.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type MovedRows,
  type WaitRows,
} from './set-wise-write.js';

/*
 * `continuation_jobs`: a token stopped at an asynchronous continuation (`camunda:asyncBefore` or
 * `asyncAfter`) waits on a row that the continuation executor claims, runs and retries as the
 * element's `camunda:failedJobRetryTimeCycle` says.
 */

/** The engine's insert of the continuation jobs its calls opened, due at once. */
export const continuationJobInserts: InsertRows<ContinuationWait> = {
  cte: 'new_continuation_jobs',
  table: 'continuation_jobs',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    effectColumns.now,
    itemColumn('wait_id', 'uuid', (wait) => wait.waitId),
    itemColumn('element_id', 'text', (wait) => wait.elementId),
    // The first attempt and the cycle's retries.
    itemColumn('retries', 'int', (wait) => wait.retry.retries + 1),
    { ...itemColumn('intervals', 'jsonb', (wait) => JSON.stringify(wait.retry.intervalsMs)), stored: false },
  ],
  computed: {
    intervals_ms: 'ARRAY(SELECT jsonb_array_elements_text(r.intervals)::int)',
    due_at: 'r.now',
    created_at: 'r.now',
  },
};

/** The rows of continuation jobs kept by a migration, pointed at their new element. */
export const continuationJobMoves: MovedRows = {
  cte: 'moved_continuation_jobs',
  table: 'continuation_jobs',
  idColumn: 'wait_id',
  elementColumn: 'element_id',
};

/** The engine's delete of the continuation jobs of the waits its calls closed. */
export const continuationJobWaits: WaitRows = {
  cte: 'closed_continuation_jobs',
  table: 'continuation_jobs',
  waitColumn: 'wait_id',
};

/** One continuation job: a row of `continuation_jobs`, waiting on an engine wait. */
export interface ContinuationJob {
  id: string;
  orgId: string;
  processInstanceId: string;
  waitId: string;
  elementId: string;
  dueAt: Date;
  /** Attempts left, this one included. */
  retries: number;
  attempts: number;
}

interface ContinuationJobRow {
  id: string;
  org_id: string;
  process_instance_id: string;
  wait_id: string;
  element_id: string;
  due_at: Date;
  retries: number;
  attempts: number;
}

/** Locks up to `limit` due jobs with attempts left, earliest first, skipping rows others hold. */
export async function claimDueContinuationJobs(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<ContinuationJob[]> {
  const { rows } = await db.query<ContinuationJobRow>({
    name: 'workflow.continuations.claim',
    text: claimDueSql(
      'continuation_jobs',
      'id, org_id, process_instance_id, wait_id, element_id, due_at, retries, attempts',
      'due_at',
      notSuspended('continuation_jobs.process_instance_id'),
    ),
    values: [now, limit],
  });
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    processInstanceId: row.process_instance_id,
    waitId: row.wait_id,
    elementId: row.element_id,
    dueAt: row.due_at,
    retries: row.retries,
    attempts: row.attempts,
  }));
}

/** The earliest due time strictly after `now` of a job with attempts left (null: none). */
export async function nextContinuationDue(db: Queryable, now: Date): Promise<Date | null> {
  const { rows } = await db.query<{ due_at: Date | null }>({
    name: 'workflow.continuations.next-due',
    text: `SELECT min(due_at) AS due_at FROM continuation_jobs WHERE due_at > $1 AND retries > 0`,
    values: [now],
  });
  return rows[0]?.due_at ?? null;
}

/** Deletes a job that is done (the engine's write usually deleted it already with its wait). */
export async function deleteContinuationJob(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'workflow.continuations.delete',
    text: `DELETE FROM continuation_jobs WHERE id = $1`,
    values: [id],
  });
}

/**
 * Records a failed attempt: one attempt fewer (never below `keepOne ? 1 : 0`) and, while some are
 * left, due again after the cycle's interval for this retry (the last interval repeats). Returns
 * the attempts left.
 */
export async function recordContinuationFailure(
  db: Queryable,
  id: string,
  message: string,
  now: Date,
  keepOne: boolean,
): Promise<number> {
  const { rows } = await db.query<{ retries: number }>({
    name: 'workflow.continuations.fail',
    text: `UPDATE continuation_jobs
           SET retries = greatest(retries - 1, $4::int),
               attempts = attempts + 1,
               last_error = $2,
               due_at = CASE WHEN greatest(retries - 1, $4::int) > 0
                             THEN $3::timestamptz
                                  + intervals_ms[least(attempts + 1, cardinality(intervals_ms))]
                                    * interval '1 millisecond'
                             ELSE due_at END
           WHERE id = $1
           RETURNING retries`,
    values: [id, message.slice(0, 4000), now, keepOne ? 1 : 0],
  });
  return rows[0]?.retries ?? 0;
}
