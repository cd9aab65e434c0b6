import pg from 'pg';
import { handleConnectionErrors, pgErrorCode, PgErrorCode } from './pool.js';

/**
 * Creates `login` as a plain login role (no superuser, no BYPASSRLS) with `secret` as its
 * password, or resets an existing one to that; safe against a concurrent twin.
 */
export async function ensureLogin(adminUrl: string, login: string, secret: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  // A failure reaches the awaited queries; the listener keeps it from ending the process as well.
  handleConnectionErrors(client, undefined, 'weft-provision-login');
  await client.connect();
  try {
    const role = client.escapeIdentifier(login);
    const password = client.escapeLiteral(secret);
    const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [login]);
    const options = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD ${password}`;
    if (rowCount === 0)
      await client.query(`CREATE ROLE ${role} ${options}`).catch(async (error: unknown) => {
        const code = pgErrorCode(error);
        if (code !== PgErrorCode.duplicateObject && code !== PgErrorCode.uniqueViolation) throw error;
        await client.query(`ALTER ROLE ${role} ${options}`);
      });
    else await client.query(`ALTER ROLE ${role} ${options}`);
  } finally {
    await client.end();
  }
}
