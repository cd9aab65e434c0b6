import type { PoolClient } from '../../platform/database/pool.js';
import type { Pool } from '../../platform/database/pool.js';
import { RecordsErrors } from '../errors.js';

/** How long a key is remembered. */
export const idempotencyRetentionHours = 24;

/** A response to give back again. */
export interface StoredResponse {
  status: number;
  body: string;
}

/**
 * Claims `key` for this request inside the caller's transaction. A concurrent request with the same
 * key blocks on the uncommitted row until the first commits, then replays its response; if the
 * first rolls back, the second runs. Returns the stored response to replay, or undefined when this
 * request owns the key. An expired key is taken over.
 */
export async function claimIdempotencyKey(
  client: PoolClient,
  actor: string,
  key: string,
  hash: string,
): Promise<StoredResponse | undefined> {
  const claimed = await client.query(
    `INSERT INTO records.idempotency_keys (actor_id, key, request_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => ${idempotencyRetentionHours}))
     ON CONFLICT (actor_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL,
           created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE records.idempotency_keys.expires_at <= now()
     RETURNING 1`,
    [actor, key, hash],
  );
  if (claimed.rowCount === 1) return undefined;
  const { rows } = await client.query<{
    request_hash: string;
    response_status: number | null;
    response_body: string | null;
  }>(
    `SELECT request_hash, response_status, response_body FROM records.idempotency_keys WHERE actor_id = $1 AND key = $2`,
    [actor, key],
  );
  const row = rows[0];
  if (!row) throw RecordsErrors.idempotencyInProgress();
  if (row.request_hash !== hash) throw RecordsErrors.idempotencyConflict();
  if (row.response_status === null || row.response_body === null) throw RecordsErrors.idempotencyInProgress();
  return { status: row.response_status, body: row.response_body };
}

/** Stores the response of the request that owns `key`, in the same transaction as its write. */
export async function storeIdempotentResponse(
  client: PoolClient,
  actor: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await client.query(
    `UPDATE records.idempotency_keys SET response_status = $3, response_body = $4 WHERE actor_id = $1 AND key = $2`,
    [actor, key, response.status, response.body],
  );
}

/** Deletes expired keys; returns how many. */
export async function purgeExpiredIdempotencyKeys(pool: Pool): Promise<number> {
  const result = await pool.query(`DELETE FROM records.idempotency_keys WHERE expires_at <= now()`);
  return result.rowCount ?? 0;
}
