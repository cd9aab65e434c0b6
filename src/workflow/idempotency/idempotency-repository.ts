import type { Pool, PoolClient } from '../../platform/database/pool.js';
import { WorkflowErrors } from '../errors.js';

/** How long a key is remembered (as in the records service). */
export const idempotencyRetentionHours = 24;

/** Whose key it is: keys of different organisations or callers never meet. */
export interface KeyOwner {
  orgId: string;
  /** `user:<id>` for a login, `api-key:<id>` for an API key. */
  actor: string;
  key: string;
}

/** A response to give back again. */
export interface StoredResponse {
  status: number;
  body: string;
}

/**
 * Claims a key for this request inside the caller's transaction. A concurrent request with the same
 * key blocks on the uncommitted row until the first commits, then replays its response; if the
 * first rolls back, the second runs. Returns the stored response to replay, or undefined when this
 * request owns the key. An expired key is taken over. Same key, other request: 422.
 */
export async function claimIdempotencyKey(
  client: PoolClient,
  owner: KeyOwner,
  hash: string,
): Promise<StoredResponse | undefined> {
  const claimed = await client.query({
    name: 'workflow.idempotency.claim',
    text: `INSERT INTO idempotency_keys (org_id, actor, key, request_hash, expires_at)
           VALUES ($1, $2, $3, $4, now() + make_interval(hours => ${idempotencyRetentionHours}))
           ON CONFLICT (org_id, actor, key) DO UPDATE
             SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL,
                 created_at = now(), expires_at = EXCLUDED.expires_at
             WHERE idempotency_keys.expires_at <= now()
           RETURNING 1`,
    values: [owner.orgId, owner.actor, owner.key, hash],
  });
  if (claimed.rowCount === 1) return undefined;
  const { rows } = await client.query<{
    request_hash: string;
    response_status: number | null;
    response_body: string | null;
  }>({
    name: 'workflow.idempotency.read',
    text: `SELECT request_hash, response_status, response_body FROM idempotency_keys
           WHERE org_id = $1 AND actor = $2 AND key = $3`,
    values: [owner.orgId, owner.actor, owner.key],
  });
  const row = rows[0];
  if (row === undefined || row.response_status === null || row.response_body === null)
    throw WorkflowErrors.conflict('A request with this Idempotency-Key is still running; try again');
  if (row.request_hash !== hash)
    throw WorkflowErrors.idempotencyConflict(
      'This Idempotency-Key was used with a different request; use a new key',
    );
  return { status: row.response_status, body: row.response_body };
}

/** Stores the response of the request that owns the key, in the same transaction as its write. */
export async function storeIdempotentResponse(
  client: PoolClient,
  owner: KeyOwner,
  response: StoredResponse,
): Promise<void> {
  await client.query({
    name: 'workflow.idempotency.store',
    text: `UPDATE idempotency_keys SET response_status = $4, response_body = $5
           WHERE org_id = $1 AND actor = $2 AND key = $3`,
    values: [owner.orgId, owner.actor, owner.key, response.status, response.body],
  });
}

/**
 * Deletes up to `limit` expired keys (skipping rows a request is claiming right now); returns how
 * many.
 */
export async function deleteExpiredIdempotencyKeys(db: Pool | PoolClient, limit: number): Promise<number> {
  const { rowCount } = await db.query({
    name: 'workflow.idempotency.sweep',
    text: `DELETE FROM idempotency_keys WHERE ctid IN (
             SELECT ctid FROM idempotency_keys WHERE expires_at <= now()
             LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    values: [limit],
  });
  return rowCount ?? 0;
}
