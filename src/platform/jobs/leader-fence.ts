import type { Pool, PoolClient } from '../database/pool.js';
import { assertLeaderLeaseSql, leaseLostSqlState, type LeaseToken } from './leader-lease-repository.js';

/** A leader's write was refused: this instance does not hold the lease (any more). */
export class LeaderLeaseLostError extends Error {
  constructor() {
    super('this instance does not hold the leader lease');
  }
}

/** True for a write refused because the lease was lost, in this process or by the database. */
export function isLeaderLeaseLost(error: unknown): boolean {
  return (
    error instanceof LeaderLeaseLostError ||
    (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === leaseLostSqlState)
  );
}

/** The SQL that fences one transaction. */
export interface FencedTransaction {
  /** Runs right after BEGIN, in the same message: fails the transaction if the lease is not held. */
  check: string;
  /** Checks again, share-locking the lease row, and commits, in one message. */
  commit: string;
}

/**
 * Fences the leader's transactions with its lease: every transaction a leader loop opens checks
 * after BEGIN and again just before COMMIT that the lease still has the epoch the transaction was
 * opened under, so a leader that lost the lease (it was frozen, another took over) commits nothing.
 */
export interface TransactionFence {
  /** The SQL of one transaction, for the lease held now; throws LeaderLeaseLostError when none is. */
  open(): FencedTransaction;
}

/**
 * A fence over the token `current()` returns (the election's). `idleTimeoutMs` (the lease's length)
 * becomes the transaction's `idle_in_transaction_session_timeout`: a leader frozen inside a
 * transaction loses its session, and the row locks of the timers it claimed, about when its lease
 * expires, so the next leader fires them rather than waiting for it to wake.
 */
export function leaseFence(current: () => LeaseToken | undefined, idleTimeoutMs: number): TransactionFence {
  const timeout = Math.max(1, Math.round(idleTimeoutMs));
  return {
    open() {
      const token = current();
      if (!token) throw new LeaderLeaseLostError();
      return {
        check: `SET LOCAL idle_in_transaction_session_timeout = ${timeout}; ${assertLeaderLeaseSql(token, false)}`,
        commit: `${assertLeaderLeaseSql(token, true)}; COMMIT`,
      };
    },
  };
}

/** Runs `work` in a transaction `fence` checks at its start and at its commit; rolls back on any failure. */
export async function inFencedTransaction<T>(
  pool: Pool,
  fence: TransactionFence,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const sql = fence.open();
  const client = await pool.connect();
  try {
    await client.query(`BEGIN; ${sql.check}`);
    const result = await work(client);
    await client.query(sql.commit);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
