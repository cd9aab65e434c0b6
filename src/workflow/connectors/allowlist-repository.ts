import type { Queryable } from '../../platform/database/queryable.js';

/** The org's connector allowlist, or null when it has none (any host but link-local ones). */
export async function findAllowlist(db: Queryable, orgId: string): Promise<string[] | null> {
  const { rows } = await db.query<{ hosts: string[] }>({
    name: 'workflow.connectors.allowlist',
    text: `SELECT hosts FROM connector_allowlists WHERE org_id = $1`,
    values: [orgId],
  });
  return rows[0]?.hosts ?? null;
}

/** Sets the org's allowlist; an empty list removes it. */
export async function saveAllowlist(db: Queryable, orgId: string, hosts: readonly string[]): Promise<void> {
  if (hosts.length === 0) {
    await db.query({ text: `DELETE FROM connector_allowlists WHERE org_id = $1`, values: [orgId] });
    return;
  }
  await db.query({
    text: `INSERT INTO connector_allowlists (org_id, hosts) VALUES ($1, $2)
           ON CONFLICT (org_id) DO UPDATE SET hosts = EXCLUDED.hosts, updated_at = now()`,
    values: [orgId, hosts],
  });
}
