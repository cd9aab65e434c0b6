import type { PoolClient } from '../../platform/database/pool.js';

/*
 * `batch_items`: one row per instance of a batch, `pending` until its operation committed
 * (`done`) or failed for good (`failed`, with the reason). The executor claims pending items with
 * FOR UPDATE SKIP LOCKED and changes an item's state in the transaction of its operation.
 */

/** A claimed item, with what its operation needs from its batch. */
export interface BatchItem {
  batchId: string;
  instanceId: string;
  orgId: string;
  type: string;
  params: unknown;
}

/** The filter of a selection: the instance list's filters. */
export interface ItemSelection {
  orgId: string;
  instanceIds?: readonly string[] | undefined;
  definitionId?: string | undefined;
  processKey?: string | undefined;
  state?: string | undefined;
  businessKey?: string | undefined;
}

/**
 * Inserts one pending item per instance of the org that the selection names (by ids, or by the
 * instance list's filters), `limit` at most, in one statement; returns how many.
 */
export async function insertSelectedItems(
  client: PoolClient,
  batchId: string,
  selection: ItemSelection,
  limit: number,
): Promise<number> {
  const result = await client.query(
    `INSERT INTO batch_items (batch_id, instance_id)
     SELECT $1, p.id FROM process_instances p
     WHERE p.org_id = $2
       AND ($3::uuid[] IS NULL OR p.id = ANY($3::uuid[]))
       AND ($4::uuid IS NULL OR p.definition_id = $4)
       AND ($5::text IS NULL OR p.process_key = $5)
       AND ($6::text IS NULL OR p.state = $6)
       AND ($7::text IS NULL OR p.business_key = $7)
     LIMIT $8`,
    [
      batchId,
      selection.orgId,
      selection.instanceIds ?? null,
      selection.definitionId ?? null,
      selection.processKey ?? null,
      selection.state ?? null,
      selection.businessKey ?? null,
      limit,
    ],
  );
  return result.rowCount ?? 0;
}

/** Locks up to `limit` pending items, oldest batch first, skipping those another loop holds. */
export async function claimPendingItems(client: PoolClient, limit: number): Promise<BatchItem[]> {
  const { rows } = await client.query<{
    batch_id: string;
    instance_id: string;
    org_id: string;
    type: string;
    params: unknown;
  }>({
    name: 'workflow.batch-items.claim',
    text: `SELECT i.batch_id, i.instance_id, b.org_id, b.type, b.params
           FROM batch_items i JOIN batches b ON b.id = i.batch_id
           WHERE i.state = 'pending'
           ORDER BY i.batch_id, i.instance_id
           LIMIT $1
           FOR UPDATE OF i SKIP LOCKED`,
    values: [limit],
  });
  return rows.map((row) => ({
    batchId: row.batch_id,
    instanceId: row.instance_id,
    orgId: row.org_id,
    type: row.type,
    params: row.params,
  }));
}

/** Marks items done, in the transaction of their operations. */
export async function markItemsDone(
  client: PoolClient,
  items: readonly BatchItem[],
  now: Date,
): Promise<void> {
  if (items.length === 0) return;
  await client.query({
    name: 'workflow.batch-items.done',
    text: `UPDATE batch_items i SET state = 'done', finished_at = $3
           FROM unnest($1::uuid[], $2::uuid[]) AS d(batch_id, instance_id)
           WHERE i.batch_id = d.batch_id AND i.instance_id = d.instance_id AND i.state = 'pending'`,
    values: [items.map((i) => i.batchId), items.map((i) => i.instanceId), now],
  });
}

/** Marks an item failed for good, with the reason. */
export async function markItemFailed(
  client: PoolClient,
  item: BatchItem,
  reason: string,
  now: Date,
): Promise<void> {
  await client.query({
    name: 'workflow.batch-items.failed',
    text: `UPDATE batch_items SET state = 'failed', reason = $3, finished_at = $4
           WHERE batch_id = $1 AND instance_id = $2 AND state = 'pending'`,
    values: [item.batchId, item.instanceId, reason.slice(0, 2000), now],
  });
}
