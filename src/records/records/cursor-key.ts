import { randomBytes } from 'node:crypto';
import type { Pool } from '../../platform/database/pool.js';

/** The deployment's cursor signing key, created once (safe when instances race), shared by all instances. */
export async function loadCursorKey(pool: Pool): Promise<Buffer> {
  await pool.query(
    `INSERT INTO records.service_secrets (name, value) VALUES ('cursor_signing_key', $1) ON CONFLICT (name) DO NOTHING`,
    [randomBytes(32)],
  );
  const { rows } = await pool.query<{ value: Buffer }>(
    `SELECT value FROM records.service_secrets WHERE name = 'cursor_signing_key'`,
  );
  if (!rows[0]) throw new Error('The cursor signing key could not be loaded');
  return rows[0].value;
}
