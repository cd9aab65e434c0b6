import type { Pool } from '../../platform/database/pool.js';

/**
 * The value of a named row of `service_secrets`, storing `candidate` first when the row does not
 * exist yet; instances that race all read the one value that was stored first.
 */
export async function readOrCreateServiceSecret(
  pool: Pool,
  name: string,
  candidate: Buffer,
): Promise<Buffer | undefined> {
  await pool.query(
    `INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    [name, candidate],
  );
  const { rows } = await pool.query<{ value: Buffer }>(`SELECT value FROM service_secrets WHERE name = $1`, [
    name,
  ]);
  return rows[0]?.value;
}
