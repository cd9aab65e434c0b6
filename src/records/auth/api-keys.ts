import { createHash } from 'node:crypto';
import { randomUrlSafe } from '../../platform/crypto/tokens.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Identity } from '../types.js';

/** Prefix of records API keys, so a key is recognisable in a bearer header and in leak scanners. */
export const apiKeyPrefix = 'wrk_';
const keyShape = /^wrk_[A-Za-z0-9_-]{43}$/;

/** What `weft records api-key create` asks for. */
export interface NewApiKey {
  actor: string;
  roles: string[];
  ttlSeconds?: number;
  allowedCidrs?: string[];
  /** Token scopes the key grants (checked against a strategy's `requiredScopes`). */
  scopes?: string[];
}

function sha256(plaintext: string): Buffer {
  return createHash('sha256').update(plaintext, 'utf8').digest();
}

/** Creates a key; the plaintext is returned once and only its SHA-256 is stored. */
export async function createApiKey(
  pool: Pool,
  key: NewApiKey,
): Promise<{ id: string; plaintext: string; expiresAt: Date | null }> {
  const plaintext = `${apiKeyPrefix}${randomUrlSafe(32)}`;
  const { rows } = await pool.query<{ id: string; expires_at: Date | null }>(
    `INSERT INTO records.api_keys (key_hash, actor_id, roles, allowed_cidrs, expires_at, scopes)
     VALUES ($1, $2, $3, $4::cidr[], CASE WHEN $5::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => $5::bigint) END, $6)
     RETURNING id, expires_at`,
    [
      sha256(plaintext),
      key.actor,
      key.roles,
      key.allowedCidrs ?? [],
      key.ttlSeconds ?? null,
      key.scopes ?? [],
    ],
  );
  const row = rows[0];
  if (!row) throw new Error('The API key was not stored');
  return { id: row.id, plaintext, expiresAt: row.expires_at };
}

/** Revokes a key at once (the next request with it is refused). */
export async function revokeApiKey(pool: Pool, id: string): Promise<boolean> {
  const result = await pool.query(
    `UPDATE records.api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
    [id],
  );
  return result.rowCount === 1;
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
