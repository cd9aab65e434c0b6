import type { Pool } from '../../../platform/database/pool.js';
import type { OrgRole } from '../auth/identity.js';

/** An organisation. */
export interface OrgRecord {
  id: string;
  name: string;
  slug: string;
}

/** A user's roles in an organisation. */
export interface MembershipRecord {
  org_id: string;
  user_id: string;
  email: string;
  roles: OrgRole[];
}

/** Inserts an organisation; a taken slug surfaces as error 23505. */
export async function insertOrg(pool: Pool, name: string, slug: string): Promise<OrgRecord> {
  const { rows } = await pool.query<OrgRecord>(
    'INSERT INTO orgs (name, slug) VALUES ($1, $2) RETURNING id, name, slug',
    [name, slug],
  );
  return firstRow(rows);
}

/** Every organisation, by name. */
export async function listAllOrgs(pool: Pool): Promise<OrgRecord[]> {
  const { rows } = await pool.query<OrgRecord>('SELECT id, name, slug FROM orgs ORDER BY name, id');
  return rows;
}

/** The organisations with these slugs (those that exist). */
export async function findOrgsBySlugs(pool: Pool, slugs: readonly string[]): Promise<OrgRecord[]> {
  const { rows } = await pool.query<OrgRecord>({
    name: 'workflow.orgs.by-slugs',
    text: 'SELECT id, name, slug FROM orgs WHERE slug = ANY($1::text[])',
    values: [slugs],
  });
  return rows;
}

/** True when the organisation exists. */
export async function orgExists(pool: Pool, orgId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM orgs WHERE id = $1', [orgId]);
  return rowCount === 1;
}

/** Creates or replaces a membership; null when the org or the user does not exist. */
export async function upsertMembership(
  pool: Pool,
  orgId: string,
  userId: string,
  roles: readonly OrgRole[],
): Promise<MembershipRecord | null> {
  const { rows } = await pool.query<MembershipRecord>(
    `WITH upserted AS (
       INSERT INTO memberships (org_id, user_id, roles)
       SELECT o.id, u.id, $3::text[] FROM orgs o, users u WHERE o.id = $1 AND u.id = $2
       ON CONFLICT (org_id, user_id) DO UPDATE SET roles = EXCLUDED.roles, updated_at = now()
       RETURNING org_id, user_id, roles
     )
     SELECT upserted.org_id, upserted.user_id, users.email, upserted.roles
     FROM upserted JOIN users ON users.id = upserted.user_id`,
    [orgId, userId, [...new Set(roles)]],
  );
  return rows[0] ?? null;
}

/** Removes a membership; false when there was none. */
export async function deleteMembership(pool: Pool, orgId: string, userId: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [
    orgId,
    userId,
  ]);
  return rowCount === 1;
}

/** The members of an organisation, by email. */
export async function listMembers(pool: Pool, orgId: string): Promise<MembershipRecord[]> {
  const { rows } = await pool.query<MembershipRecord>(
    `SELECT m.org_id, m.user_id, u.email, m.roles
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.org_id = $1 ORDER BY lower(u.email)`,
    [orgId],
  );
  return rows;
}

function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}
