import type { Pool } from '../../../platform/database/pool.js';

/** An API key as its owner sees it: never the secret or its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

const publicColumns = 'id, name, prefix, created_at, revoked_at, last_used_at';

/** Stores a new key's hash. */
export async function insertApiKey(
  pool: Pool,
  key: { userId: string; name: string; prefix: string; keyHash: Buffer },
): Promise<ApiKeyRecord> {
  const { rows } = await pool.query<ApiKeyRow>(
    `INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, $2, $3, $4) RETURNING ${publicColumns}`,
    [key.userId, key.name, key.prefix, key.keyHash],
  );
  const row = rows[0];
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return toRecord(row);
}

/** The keys of one user, newest first. */
export async function listApiKeys(pool: Pool, userId: string): Promise<ApiKeyRecord[]> {
  const { rows } = await pool.query<ApiKeyRow>(
    `SELECT ${publicColumns} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id`,
    [userId],
  );
  return rows.map(toRecord);
}

/** Sets revoked_at on the user's key (kept if already revoked); false when the user has no such key. */
export async function revokeApiKey(pool: Pool, userId: string, keyId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND user_id = $2',
    [keyId, userId],
  );
  return rowCount === 1;
}

/** Moves each key's last_used_at forward to its time of use (never backward), in one statement. */
export async function recordApiKeyUses(pool: Pool, uses: ReadonlyMap<string, Date>): Promise<void> {
  await pool.query({
    name: 'workflow.api-keys.touch-last-used',
    text: `UPDATE api_keys k SET last_used_at = u.used_at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
           WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
    values: [[...uses.keys()], [...uses.values()]],
  });
}
