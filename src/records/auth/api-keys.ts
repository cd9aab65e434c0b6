import { createHash } from 'node:crypto';
import { randomUrlSafe } from '../../platform/crypto/tokens.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Identity } from '../types.js';

/** Prefix of records API keys, so a key is recognisable in a bearer header and in leak scanners. */
export const apiKeyPrefix = 'wrk_';
const keyShape = /^wrk_[A-Za-z0-9_-]{43}$/;

/** What `weft records api-key create` (or `POST /api/platform/api-keys`) asks for. */
export interface NewApiKey {
  actor: string;
  roles: string[];
  ttlSeconds?: number;
  allowedCidrs?: string[];
  /** Token scopes the key grants (checked against a strategy's `requiredScopes`). */
  scopes?: string[];
  /** A name to tell keys apart in a list; never secret. */
  label?: string;
  /** Who made the key (the admin's actor id, or `cli`). */
  createdBy?: string;
}

/** A key made or rotated: the plaintext is in this value only, never stored or shown again. */
export interface IssuedApiKey {
  id: string;
  plaintext: string;
  expiresAt: Date | null;
}

/** What a list shows of a key: everything but its hash. */
export interface ApiKeySummary {
  id: string;
  label: string | null;
  actor: string;
  roles: string[];
  allowedCidrs: string[];
  createdAt: Date;
  createdBy: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
  /** The key that replaced this one by rotation (it works until `expiresAt`, its grace period). */
  replacedBy: string | null;
  status: 'active' | 'rotated' | 'expired' | 'revoked';
}

function sha256(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext, 'utf8').digest();
}

function newPlaintext(): string {
  return `${apiKeyPrefix}${randomUrlSafe(32)}`;
}

/** Creates a key; the plaintext is returned once and only its SHA-256 is stored. */
export async function createApiKey(pool: Pool | PoolClient, key: NewApiKey): Promise<IssuedApiKey> {
  const plaintext = newPlaintext();
  const { rows } = await pool.query<{ id: string; expires_at: Date | null }>(
    `INSERT INTO records.api_keys (key_hash, actor_id, roles, allowed_cidrs, expires_at, scopes, label, created_by)
     VALUES ($1, $2, $3, $4::cidr[], CASE WHEN $5::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => $5::bigint) END, $6, $7, $8)
     RETURNING id, expires_at`,
    [
      sha256(plaintext),
      key.actor,
      key.roles,
      key.allowedCidrs ?? [],
      key.ttlSeconds ?? null,
      key.scopes ?? [],
      key.label ?? null,
      key.createdBy ?? null,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error('The API key was not stored');
  return { id: row.id, plaintext, expiresAt: row.expires_at };
}

/** Lists keys, newest first: by default only those that still work (active or rotated in their grace period). */
export async function listApiKeys(
  pool: Pool,
  filter: { actor?: string; includeInactive?: boolean; limit?: number } = {},
): Promise<ApiKeySummary[]> {
  const { rows } = await pool.query<{
    id: string;
    label: string | null;
    actor_id: string;
    roles: string[];
    allowed_cidrs: string[];
    created_at: Date;
    created_by: string | null;
    expires_at: Date | null;
    revoked_at: Date | null;
    revoked_by: string | null;
    replaced_by: string | null;
    status: ApiKeySummary['status'];
  }>(
    `SELECT id, label, actor_id, roles, allowed_cidrs::text[] AS allowed_cidrs, created_at, created_by,
            expires_at, revoked_at, revoked_by, replaced_by,
            CASE WHEN revoked_at IS NOT NULL THEN 'revoked'
                 WHEN expires_at IS NOT NULL AND expires_at <= now() THEN 'expired'
                 WHEN replaced_by IS NOT NULL THEN 'rotated'
                 ELSE 'active' END AS status
     FROM records.api_keys
     WHERE ($1::text IS NULL OR actor_id = $1)
       AND ($2 OR (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())))
     ORDER BY created_at DESC, id
     LIMIT $3`,
    [filter.actor ?? null, filter.includeInactive ?? false, filter.limit ?? 1000],
  );
  return rows.map((row) => ({
    id: row.id,
    label: row.label,
    actor: row.actor_id,
    roles: row.roles,
    allowedCidrs: row.allowed_cidrs,
    createdAt: row.created_at,
    createdBy: row.created_by,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by,
    replacedBy: row.replaced_by,
    status: row.status,
  }));
}

/**
 * Revokes a key at once: the next request with it is refused on every instance, since keys are
 * looked up on each request. Returns `'revoked'`, `'already'` (it was revoked before; nothing
 * changes) or `'missing'`. A rotated key in its grace period is revoked too (the grace ends).
 */
export async function revokeApiKey(
  pool: Pool | PoolClient,
  id: string,
  revokedBy: string | null = null,
): Promise<'revoked' | 'already' | 'missing'> {
  const { rows } = await pool.query<{ changed: boolean }>(
    `WITH target AS (SELECT id, revoked_at FROM records.api_keys WHERE id = $1 FOR UPDATE),
          changed AS (
            UPDATE records.api_keys k SET revoked_at = now(), revoked_by = $2
            FROM target WHERE k.id = target.id AND target.revoked_at IS NULL RETURNING k.id)
     SELECT EXISTS (SELECT FROM changed) AS changed FROM target`,
    [id, revokedBy],
  );
  const row = rows[0];
  return row === undefined ? 'missing' : row.changed ? 'revoked' : 'already';
}

/** What a rotation asks for. */
export interface Rotation {
  /** Seconds the old key keeps working; 0 or absent revokes it at once. */
  graceSeconds?: number;
  /** Lifetime of the new key; absent gives it the old key's lifetime (none if it had none). */
  ttlSeconds?: number;
  rotatedBy?: string;
}

/**
 * Rotates a working key: a new key with the same actor, roles, attributes, address ranges, label
 * and any other column of the old row (the row is copied whole, so columns added later follow),
 * then the old key is revoked, or with a grace period expires at the end of it (`oldUntil`; null
 * when it was revoked at once). Null when there is no working, not yet rotated key of that id.
 */
export async function rotateApiKey(
  client: PoolClient,
  id: string,
  rotation: Rotation = {},
): Promise<(IssuedApiKey & { replaced: string; oldUntil: Date | null }) | null> {
  const plaintext = newPlaintext();
  const { rows } = await client.query<{ id: string; expires_at: Date | null; old_until: Date | null }>(
    `WITH old AS (
       SELECT * FROM records.api_keys
       WHERE id = $1 AND revoked_at IS NULL AND replaced_by IS NULL AND (expires_at IS NULL OR expires_at > now())
       FOR UPDATE),
     fresh AS (
       INSERT INTO records.api_keys
       SELECT (jsonb_populate_record(NULL::records.api_keys, to_jsonb(old) || jsonb_build_object(
         'id', gen_random_uuid(), 'key_hash', '\\x' || encode($2::bytea, 'hex'), 'created_at', now(),
         'created_by', $5::text, 'revoked_at', NULL, 'revoked_by', NULL, 'replaced_by', NULL,
         'expires_at', CASE WHEN $4::bigint IS NOT NULL THEN now() + make_interval(secs => $4::bigint)
                            WHEN old.expires_at IS NOT NULL THEN now() + (old.expires_at - old.created_at) END))).*
       FROM old
       RETURNING id, expires_at)
     UPDATE records.api_keys k
     SET replaced_by = fresh.id,
         revoked_at = CASE WHEN $3::bigint > 0 THEN NULL ELSE now() END,
         revoked_by = CASE WHEN $3::bigint > 0 THEN NULL ELSE $5::text END,
         expires_at = CASE WHEN $3::bigint > 0
                           THEN least(coalesce(k.expires_at, 'infinity'), now() + make_interval(secs => $3::bigint))
                           ELSE k.expires_at END
     FROM fresh WHERE k.id = $1
     RETURNING fresh.id, fresh.expires_at, CASE WHEN $3::bigint > 0 THEN k.expires_at END AS old_until`,
    [
      id,
      sha256(plaintext),
      rotation.graceSeconds ?? 0,
      rotation.ttlSeconds ?? null,
      rotation.rotatedBy ?? null,
    ],
  );
  const row = rows[0];
  return row
    ? { id: row.id, plaintext, expiresAt: row.expires_at, replaced: id, oldUntil: row.old_until }
    : null;
}

/**
 * The identity of a live key used from an allowed address, or null. Looked up on every request,
 * so revocation and expiry apply immediately.
 */
export async function identityOfApiKey(
  pool: Pool,
  plaintext: string,
  address: string,
): Promise<Identity | null> {
  return (await identityOfApiKeyRow(pool, plaintext, address))?.identity ?? null;
}

/**
 * Like identityOfApiKey, with the key's creation time (revocations refuse keys made before them) and
 * the scopes it grants.
 */
export async function identityOfApiKeyRow(
  pool: Pool,
  plaintext: string,
  address: string,
): Promise<{ identity: Identity; createdAt: Date; scopes: ReadonlySet<string> } | null> {
  if (!keyShape.test(plaintext)) return null;
  const { rows } = await pool.query<{
    actor_id: string;
    roles: string[];
    attributes: Record<string, unknown>;
    created_at: Date;
    scopes: string[];
  }>({
    name: 'records_api_key_identity_row',
    text: `SELECT actor_id, roles, attributes, created_at, scopes FROM records.api_keys
           WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
             AND (cardinality(allowed_cidrs) = 0 OR $2::inet <<= ANY(allowed_cidrs))`,
    values: [sha256(plaintext), address],
  });
  const row = rows[0];
  return row
    ? {
        identity: { actor_id: row.actor_id, roles: row.roles, attributes: row.attributes },
        createdAt: row.created_at,
        scopes: new Set(row.scopes),
      }
    : null;
}
