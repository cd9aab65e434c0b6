import type { Pool, PoolClient } from '../../../platform/database/pool.js';

/*
 * `message_start_keys`: the correlation key of each instance a keyed message started, so at most
 * one instance per process key and correlation key is active.
 */

type Db = Pool | PoolClient;

/** The key and process key of a message start: at most one active instance per pair. */
export interface MessageStartKey {
  orgId: string;
  processKey: string;
  correlationKey: string;
}

/** True while an instance started by a message of this correlation key is still active. */
export async function messageStartKeyActive(db: Db, key: MessageStartKey): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'workflow.events.message_start_key_active',
    text: `SELECT 1 FROM message_start_keys k JOIN process_instances i ON i.id = k.process_instance_id
           WHERE k.org_id = $1 AND k.process_key = $2 AND k.correlation_key = $3 AND i.ended_at IS NULL`,
    values: [key.orgId, key.processKey, key.correlationKey],
  });
  return (rowCount ?? 0) > 0;
}

/**
 * Records that `instanceId` was started by a message of this key, in the start's transaction.
 * Returns false, writing nothing, when another instance of the key is still active: a concurrent
 * start of the same key waits here on the unique key until the first commits, then sees it.
 */
export async function claimMessageStartKey(
  client: PoolClient,
  key: MessageStartKey,
  instanceId: string,
): Promise<boolean> {
  const { rowCount } = await client.query({
    name: 'workflow.events.claim_message_start_key',
    text: `INSERT INTO message_start_keys AS k (org_id, process_key, correlation_key, process_instance_id)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (org_id, process_key, correlation_key)
           DO UPDATE SET process_instance_id = EXCLUDED.process_instance_id
           WHERE NOT EXISTS (SELECT 1 FROM process_instances i
                             WHERE i.id = k.process_instance_id AND i.ended_at IS NULL)`,
    values: [key.orgId, key.processKey, key.correlationKey, instanceId],
  });
  return (rowCount ?? 0) > 0;
}
