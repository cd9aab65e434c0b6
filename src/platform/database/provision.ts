import pg from 'pg';
import { handleConnectionErrors, pgErrorCode, PgErrorCode } from './pool.js';

/** Creates a database on the server of `adminUrl` unless it exists; safe against a concurrent twin. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  // A failure reaches the awaited queries; the listener keeps it from ending the process as well.
  handleConnectionErrors(client, undefined, 'weft-provision');
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((error: unknown) => {
        const code = pgErrorCode(error);
        if (code !== PgErrorCode.duplicateDatabase && code !== PgErrorCode.uniqueViolation) throw error;
      });
    }
  } finally {
    await client.end();
  }
}
