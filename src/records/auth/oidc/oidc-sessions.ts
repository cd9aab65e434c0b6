import { createHash } from 'node:crypto';
import type { Pool } from '../../../platform/database/pool.js';
import { randomUrlSafe } from '../../../platform/crypto/tokens.js';
import type { Identity } from '../../types.js';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

const sessionShape = /^[A-Za-z0-9_-]{43}$/;

/** Stores a new session for `identity`; returns the cookie value (its SHA-256 is what is kept). */
export async function createSession(
  pool: Pool,
  session: { strategy: string; identity: Identity; now: Date; ttlSeconds: number },
): Promise<string> {
  const id = randomUrlSafe(32);
  await pool.query(
    `INSERT INTO records.oidc_sessions (id_hash, strategy, actor_id, identity, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $5::timestamptz + make_interval(secs => $6))`,
    [
      sha256(id),
      session.strategy,
      session.identity.actor_id,
      session.identity,
      session.now,
      session.ttlSeconds,
    ],
  );
  return id;
}

/** The identity and creation time of a live session of `strategy`, or null. */
export async function sessionIdentity(
  pool: Pool,
  strategy: string,
  cookie: string,
  now: Date,
): Promise<{ identity: Identity; createdAt: Date } | null> {
  if (!sessionShape.test(cookie)) return null;
  const { rows } = await pool.query<{ identity: Identity; created_at: Date }>({
    name: 'records_oidc_session',
    text: `SELECT identity, created_at FROM records.oidc_sessions
           WHERE id_hash = $1 AND strategy = $2 AND revoked_at IS NULL AND expires_at > $3`,
    values: [sha256(cookie), strategy, now],
  });
  const row = rows[0];
  return row ? { identity: row.identity, createdAt: row.created_at } : null;
}

/** Revokes the session of `cookie` (every instance refuses it from the next request on). */
export async function revokeSession(pool: Pool, cookie: string, now: Date): Promise<void> {
  if (!sessionShape.test(cookie)) return;
  await pool.query(
    `UPDATE records.oidc_sessions SET revoked_at = $2 WHERE id_hash = $1 AND revoked_at IS NULL`,
    [sha256(cookie), now],
  );
}

/** An authorization request under way. */
export interface PendingLogin {
  strategy: string;
  codeVerifier: string;
  nonce: string;
  nextPath: string;
}

/** Stores a pending login under the SHA-256 of its state, for ten minutes. */
export async function storeLogin(pool: Pool, state: string, login: PendingLogin, now: Date): Promise<void> {
  await pool.query(
    `INSERT INTO records.oidc_logins (state_hash, strategy, code_verifier, nonce, next_path, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz + interval '10 minutes')`,
    [sha256(state), login.strategy, login.codeVerifier, login.nonce, login.nextPath, now],
  );
}

/** Takes a pending login once (a replayed state finds nothing); also sweeps expired ones. */
export async function takeLogin(pool: Pool, state: string, now: Date): Promise<PendingLogin | null> {
  const { rows } = await pool.query<{
    strategy: string;
    code_verifier: string;
    nonce: string;
    next_path: string;
  }>(
    `WITH swept AS (DELETE FROM records.oidc_logins WHERE expires_at <= $2)
     DELETE FROM records.oidc_logins WHERE state_hash = $1 AND expires_at > $2
     RETURNING strategy, code_verifier, nonce, next_path`,
    [sha256(state), now],
  );
  const row = rows[0];
  return row
    ? { strategy: row.strategy, codeVerifier: row.code_verifier, nonce: row.nonce, nextPath: row.next_path }
    : null;
}

/** Deletes sessions that expired or were revoked more than a day ago (run hourly). */
export async function purgeEndedSessions(pool: Pool): Promise<void> {
  await pool.query(
    `DELETE FROM records.oidc_sessions
     WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day'`,
  );
}
