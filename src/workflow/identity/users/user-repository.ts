import type { Pool, PoolClient } from '../../../platform/database/pool.js';

/** A user as stored, without secrets. */
export interface UserRecord {
  id: string;
  email: string;
  auth_provider: 'internal' | 'external';
}

/** What login needs: the stored hash and provider of one email. */
export interface LoginRecord extends UserRecord {
  password_hash: string | null;
}

/** Finds a user by email, ignoring case. */
export async function findLoginRecord(pool: Pool, email: string): Promise<LoginRecord | null> {
  const { rows } = await pool.query<LoginRecord>({
    name: 'workflow.users.login-record',
    text: 'SELECT id, email, auth_provider, password_hash FROM users WHERE lower(email) = lower($1)',
    values: [email],
  });
  return rows[0] ?? null;
}

/** The stored password hash and provider of one user. */
export async function findLoginRecordById(pool: Pool, userId: string): Promise<LoginRecord | null> {
  const { rows } = await pool.query<LoginRecord>(
    'SELECT id, email, auth_provider, password_hash FROM users WHERE id = $1',
    [userId],
  );
  return rows[0] ?? null;
}

/** Whether any user exists (first-boot bootstrap creates an admin only when none does). */
export async function anyUserExists(db: Pool | PoolClient): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS exists');
  return rows[0]?.exists === true;
}

/** Inserts a user; unique violations on the email surface as PostgreSQL error 23505. */
export async function insertUser(
  db: Pool | PoolClient,
  user: {
    email: string;
    passwordHash: string | null;
    authProvider: 'internal' | 'external';
    globalRoles?: string[];
  },
): Promise<UserRecord> {
  const { rows } = await db.query<UserRecord>(
    `INSERT INTO users (email, password_hash, auth_provider, global_roles)
     VALUES ($1, $2, $3, $4) RETURNING id, email, auth_provider`,
    [user.email, user.passwordHash, user.authProvider, user.globalRoles ?? []],
  );
  const row = rows[0];
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

/** Replaces a user's password hash. */
export async function updatePasswordHash(pool: Pool, userId: string, passwordHash: string): Promise<void> {
  await pool.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [
    userId,
    passwordHash,
  ]);
}
