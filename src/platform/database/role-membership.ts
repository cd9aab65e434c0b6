import { escapeIdentifier } from 'pg';
import type { Logger } from '../logging/logger.js';
import type { Pool } from './pool.js';

/**
 * Makes `login` (the runtime login a service serves requests as) a member of `appRole`, the group
 * role that holds exactly the runtime privileges. Needs the owner to hold CREATEROLE or the role's
 * ADMIN option; where it does not, a warning says so and the operator grants it once.
 */
export async function grantApplicationRole(
  ownerPool: Pool,
  appRole: string,
  login: string,
  logger: Logger,
): Promise<void> {
  const { rows } = await ownerPool.query<{ owner: string; member: boolean | null; exists: boolean }>(
    `SELECT current_user AS owner, EXISTS (SELECT FROM pg_roles WHERE rolname = $2) AS exists,
            CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = $2) THEN pg_has_role($1, $2, 'MEMBER') END AS member
     FROM pg_roles WHERE rolname = $1`,
    [login, appRole],
  );
  const row = rows[0];
  if (!row) throw new Error(`The runtime login ${login} does not exist`);
  if (row.owner === login || row.member || !row.exists) return;
  try {
    await ownerPool.query(`GRANT ${escapeIdentifier(appRole)} TO ${escapeIdentifier(login)}`);
  } catch (error) {
    logger.warn(
      { login, role: appRole, err: error },
      `the runtime login is not a member of ${appRole}; grant it as a role administrator`,
    );
  }
}
