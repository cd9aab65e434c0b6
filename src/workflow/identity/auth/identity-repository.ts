import type { Pool } from '../../../platform/database/pool.js';
import type { Identity, OrgMembership } from './identity.js';

interface IdentityRow {
  id: string;
  email: string;
  auth_provider: 'internal' | 'external';
  global_roles: Identity['globalRoles'];
  orgs: OrgMembership[];
}

interface ApiKeyIdentityRow extends IdentityRow {
  key_id: string;
  key_hash: Buffer;
  revoked_at: Date | null;
}

// One statement loads the user with every membership, so authentication and /me cost one round trip.
const identityColumns = `u.id, u.email, u.auth_provider, u.global_roles,
  COALESCE((
    SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'slug', o.slug, 'roles', m.roles) ORDER BY o.name, o.id)
    FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = u.id
  ), '[]'::json) AS orgs`;

/** Loads the identity of a user id, or null when the user does not exist. */
export async function findIdentityByUserId(
  pool: Pool,
  userId: string,
): Promise<Omit<Identity, 'via'> | null> {
  const { rows } = await pool.query<IdentityRow>({
    name: 'workflow.identity.by-user-id',
    text: `SELECT ${identityColumns} FROM users u WHERE u.id = $1`,
    values: [userId],
  });
  return rows[0] ? toIdentity(rows[0]) : null;
}

/** An API key's stored hash and state with its owner's identity. */
export interface ApiKeyCandidate {
  keyId: string;
  keyHash: Buffer;
  revoked: boolean;
  identity: Omit<Identity, 'via'>;
}

/** Looks up the key with this prefix and its owner, or null. */
export async function findApiKeyCandidate(pool: Pool, prefix: string): Promise<ApiKeyCandidate | null> {
  const { rows } = await pool.query<ApiKeyIdentityRow>({
    name: 'workflow.identity.by-api-key-prefix',
    text: `SELECT k.id AS key_id, k.key_hash, k.revoked_at, ${identityColumns}
           FROM api_keys k JOIN users u ON u.id = k.user_id
           WHERE k.prefix = $1`,
    values: [prefix],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    revoked: row.revoked_at !== null,
    identity: toIdentity(row),
  };
}

function toIdentity(row: IdentityRow): Omit<Identity, 'via'> {
  return {
    userId: row.id,
    email: row.email,
    authProvider: row.auth_provider,
    globalRoles: row.global_roles,
    orgs: row.orgs,
  };
}
