import type { Pool, PoolClient } from '../../platform/database/pool.js';

/*
 * `batches`: one row per batch (an operation over a selection of instances); its items are in
 * `batch_items` (batch-item-repository.ts). Counts of done and failed items are read from the items.
 */

/** A batch as the API shows it. */
export interface BatchRecord {
  id: string;
  org_id: string;
  type: string;
  state: 'running' | 'completed';
  total: number;
  done: number;
  failed: number;
  failures: { instance_id: string; reason: string }[];
  created_at: string;
  finished_at: string | null;
}

interface BatchRow {
  id: string;
  org_id: string;
  type: string;
  state: 'running' | 'completed';
  total: number;
  done: string;
  failed: string;
  failures: { instance_id: string; reason: string }[] | null;
  created_at: Date;
  finished_at: Date | null;
}

/** Failures listed on a batch; the counts cover them all. */
const FAILURES_SHOWN = 1000;

const batchSelect = `
  SELECT b.id, b.org_id, b.type, b.state, b.total, b.created_at, b.finished_at,
         (SELECT count(*) FROM batch_items i WHERE i.batch_id = b.id AND i.state = 'done') AS done,
         (SELECT count(*) FROM batch_items i WHERE i.batch_id = b.id AND i.state = 'failed') AS failed,
         (SELECT json_agg(json_build_object('instance_id', f.instance_id, 'reason', f.reason))
            FROM (SELECT instance_id, reason FROM batch_items i
                  WHERE i.batch_id = b.id AND i.state = 'failed'
                  ORDER BY i.finished_at, i.instance_id LIMIT ${FAILURES_SHOWN}) f) AS failures
  FROM batches b`;

function toRecord(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    type: row.type,
    state: row.state,
    total: row.total,
    done: Number(row.done),
    failed: Number(row.failed),
    failures: row.failures ?? [],
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

/** Inserts a batch (its items follow in the same transaction). */
export async function insertBatch(
  client: PoolClient,
  batch: { id: string; orgId: string; type: string; params: unknown; createdBy: string; now: Date },
): Promise<void> {
  await client.query(
    `INSERT INTO batches (id, org_id, type, params, total, created_by, created_at)
     VALUES ($1, $2, $3, $4, 1, $5, $6)`,
    [batch.id, batch.orgId, batch.type, JSON.stringify(batch.params), batch.createdBy, batch.now],
  );
}

/** Sets the number of items of a batch, once they are inserted. */
export async function setBatchTotal(client: PoolClient, id: string, total: number): Promise<void> {
  await client.query('UPDATE batches SET total = $2 WHERE id = $1', [id, total]);
}

/** A batch with its counts and failures; null when absent. */
export async function findBatch(db: Pool | PoolClient, id: string): Promise<BatchRecord | null> {
  const { rows } = await db.query<BatchRow>({
    name: 'workflow.batches.find',
    text: `${batchSelect} WHERE b.id = $1`,
    values: [id],
  });
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The batches of an org, newest first. */
export async function listBatches(
  db: Pool,
  page: { orgId: string; limit: number; offset: number },
): Promise<BatchRecord[]> {
  const { rows } = await db.query<BatchRow>({
    name: 'workflow.batches.list',
    text: `${batchSelect} WHERE b.org_id = $1 ORDER BY b.created_at DESC, b.id DESC LIMIT $2 OFFSET $3`,
    values: [page.orgId, page.limit, page.offset],
  });
  return rows.map(toRecord);
}

/**
 * Marks running batches without pending items completed. The item state and the operation commit
 * together, so a batch is completed only once every item is done or failed for good.
 */
export async function completeFinishedBatches(client: PoolClient, now: Date): Promise<void> {
  await client.query({
    name: 'workflow.batches.complete-finished',
    text: `UPDATE batches b SET state = 'completed', finished_at = $1
           WHERE b.state = 'running'
             AND NOT EXISTS (SELECT 1 FROM batch_items i WHERE i.batch_id = b.id AND i.state = 'pending')`,
    values: [now],
  });
}

/**
 * Deletes up to `limit` completed batches that finished before `before`, with their items (ON
 * DELETE CASCADE); returns how many. Run by the leader's housekeeping as the owner login.
 */
export async function deleteFinishedBatches(
  db: Pool | PoolClient,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await db.query({
    name: 'workflow.batches.delete-finished',
    text: `DELETE FROM batches WHERE id IN (
             SELECT id FROM batches WHERE state = 'completed' AND finished_at < $1 LIMIT $2)`,
    values: [before, limit],
  });
  return result.rowCount ?? 0;
}
