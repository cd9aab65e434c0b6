import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { quoteIdent } from '../schemas/identifiers.js';
import { appRole } from './database-roles.js';

/**
 * Makes `login` a member of the application role, so it holds exactly the runtime privileges
 * (migration 0012 and each schema's grants). Needs the owner to hold CREATEROLE or the role's
 * ADMIN option; where it does not, the operator grants it once (docs/records/access-control.md).
 */
export async function grantApplicationRole(ownerPool: Pool, login: string, logger: Logger): Promise<void> {
  const { rows } = await ownerPool.query<{ owner: string; member: boolean | null; exists: boolean }>(
    `SELECT current_user AS owner, EXISTS (SELECT FROM pg_roles WHERE rolname = $2) AS exists,
            CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = $2) THEN pg_has_role($1, $2, 'MEMBER') END AS member
     FROM pg_roles WHERE rolname = $1`,
    [login, appRole],
  );
  const row = rows[0];
  if (!row) throw new Error(`The records runtime login ${login} does not exist`);
  if (row.owner === login || row.member || !row.exists) return;
  try {
    await ownerPool.query(`GRANT ${quoteIdent(appRole)} TO ${quoteIdent(login)}`);
  } catch (error) {
    logger.warn(
      { login, role: appRole, err: error },
      `the records runtime login is not a member of ${appRole}; grant it as a role administrator`,
    );
  }
}
