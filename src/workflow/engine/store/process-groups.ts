import type { Pool, PoolClient } from '../../../platform/database/pool.js';

/*
 * `process_groups`, as deployments read it (the groups themselves are managed with their org).
 */

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
