import { escapeLiteral } from 'pg';
import type { Queryable } from '../database/queryable.js';

// The SQL of `leader_lease` and of `weft_assert_leader_lease`, all of it: this file is the table's one
// home. Both are created by a workflow migration (migrations/workflow/0016_leader_lease.sql), the only
// service that elects a leader so far; the statements keep their `workflow.lease.*` names.

/** A leadership won: the lease's name, this instance's holder id, and the epoch the takeover set. */
export interface LeaseToken {
  name: string;
  holder: string;
  epoch: number;
}

/** SQLSTATE raised by `weft_assert_leader_lease` when the lease is no longer held at that epoch. */
export const leaseLostSqlState = 'WL001';

/** Creates the lease's row, expired and held by nobody, unless it exists (once per connection). */
export async function ensureLeaderLease(db: Queryable, name: string): Promise<void> {
  await db.query({
    name: 'workflow.lease.ensure',
    text: `INSERT INTO leader_lease (name, holder, epoch, expires_at, acquired_at)
           VALUES ($1, '', 0, '-infinity', '-infinity')
           ON CONFLICT (name) DO NOTHING`,
    values: [name],
  });
}

/**
 * Takes the lease for `holder` when it has expired by the database's clock, when `holder` already
 * has it, or when the backend of the holder's election connection is gone (the holder crashed):
 * the epoch goes up by one and the lease runs `leaseMs` from now. Records this connection's backend
 * as the holder's. Returns the new token, or undefined when another holder keeps the lease.
 */
export async function acquireLeaderLease(
  db: Queryable,
  name: string,
  holder: string,
  leaseMs: number,
): Promise<LeaseToken | undefined> {
  const { rows } = await db.query<{ epoch: string }>({
    name: 'workflow.lease.acquire',
    text: `UPDATE leader_lease
           SET holder = $2, epoch = epoch + 1, holder_pid = pg_backend_pid(),
               expires_at = clock_timestamp() + $3 * interval '1 millisecond', acquired_at = clock_timestamp()
           WHERE name = $1
             AND (expires_at <= clock_timestamp() OR holder = $2
                  OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = leader_lease.holder_pid))
           RETURNING epoch`,
    values: [name, holder, leaseMs],
  });
  const epoch = rows[0]?.epoch;
  return epoch === undefined ? undefined : { name, holder, epoch: Number(epoch) };
}

/**
 * The heartbeat: extends the lease to `leaseMs` from now, if `token` still holds it unexpired.
 * False means the lease was lost (expired, or taken over at a higher epoch).
 */
export async function renewLeaderLease(db: Queryable, token: LeaseToken, leaseMs: number): Promise<boolean> {
  const result = await db.query({
    name: 'workflow.lease.renew',
    text: `UPDATE leader_lease
           SET expires_at = clock_timestamp() + $4 * interval '1 millisecond', holder_pid = pg_backend_pid()
           WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > clock_timestamp()`,
    values: [token.name, token.holder, token.epoch, leaseMs],
  });
  return result.rowCount === 1;
}

/** Ends `token`'s lease now (a clean stop), so another instance takes over at its next attempt. */
export async function releaseLeaderLease(db: Queryable, token: LeaseToken): Promise<void> {
  await db.query({
    name: 'workflow.lease.release',
    text: `UPDATE leader_lease SET expires_at = clock_timestamp()
           WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > clock_timestamp()`,
    values: [token.name, token.holder, token.epoch],
  });
}

/**
 * The statement that fails its transaction (SQLSTATE WL001) unless `token` still holds the lease,
 * unexpired by the database's clock. With `hold`, it also share-locks the lease row until the
 * transaction ends. Inlined (escaped) rather than bound, so it can share a simple-query message
 * with BEGIN or COMMIT: the server runs the message through without waiting for the client.
 */
export function assertLeaderLeaseSql(token: LeaseToken, hold: boolean): string {
  if (!Number.isSafeInteger(token.epoch)) throw new Error(`invalid lease epoch ${token.epoch}`);
  return `SELECT weft_assert_leader_lease(${escapeLiteral(token.name)}, ${escapeLiteral(token.holder)}, ${token.epoch}, ${hold})`;
}
