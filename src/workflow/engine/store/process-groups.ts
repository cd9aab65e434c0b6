import type { Pool, PoolClient } from '../../../platform/database/pool.js';

/*
 * `process_groups`: the groups an organisation files its process keys in (created and listed with
 * the org, checked by deployments).
 */

/** A process group of an organisation. */
export interface ProcessGroupRecord {
  id: string;
  org_id: string;
  name: string;
}

/** True when the process group belongs to the org. */
export async function processGroupInOrg(
  db: Pool | PoolClient,
  orgId: string,
  processGroupId: string,
): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM process_groups WHERE id = $1 AND org_id = $2', [
    processGroupId,
    orgId,
  ]);
  return rowCount === 1;
}

/** Inserts a process group; a taken name surfaces as 23505, a missing org as 23503. */
export async function insertProcessGroup(
  pool: Pool,
  orgId: string,
  name: string,
): Promise<ProcessGroupRecord> {
  const { rows } = await pool.query<ProcessGroupRecord>(
    'INSERT INTO process_groups (org_id, name) VALUES ($1, $2) RETURNING id, org_id, name',
    [orgId, name],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

/** The process groups of an organisation, by name. */
export async function listProcessGroups(pool: Pool, orgId: string): Promise<ProcessGroupRecord[]> {
  const { rows } = await pool.query<ProcessGroupRecord>(
    'SELECT id, org_id, name FROM process_groups WHERE org_id = $1 ORDER BY name, id',
    [orgId],
  );
  return rows;
}

/**
 * The process group of an org with this name, created when there is none (in the caller's
 * transaction, so a deployment that fails leaves no group behind).
 */
export async function findOrCreateProcessGroup(
  client: PoolClient,
  orgId: string,
  name: string,
): Promise<ProcessGroupRecord> {
  const { rows } = await client.query<ProcessGroupRecord>(
    `WITH created AS (
       INSERT INTO process_groups (org_id, name) VALUES ($1, $2)
       ON CONFLICT (org_id, name) DO NOTHING
       RETURNING id, org_id, name
     )
     SELECT id, org_id, name FROM created
     UNION ALL
     SELECT id, org_id, name FROM process_groups WHERE org_id = $1 AND name = $2`,
    [orgId, name],
  );
  if (rows[0] !== undefined) return rows[0];
  // A concurrent transaction created it after this statement's snapshot: a new statement sees it.
  const again = await client.query<ProcessGroupRecord>(
    'SELECT id, org_id, name FROM process_groups WHERE org_id = $1 AND name = $2',
    [orgId, name],
  );
  const row = again.rows[0];
  if (row === undefined) throw new Error('the process group was neither found nor created');
  return row;
}
