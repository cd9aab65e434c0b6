import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import { BufferedWriter } from '../../platform/jobs/buffered-writer.js';
import type { Logger } from '../../platform/logging/logger.js';
import { insertAuthAuditEntries, type AuthAuditInsert } from './auth-audit-repository.js';

/** Outcomes of the auth audit log (the spec's, plus `revocation_unavailable` for 503 REVOCATION_UNAVAILABLE). */
export const authOutcomes = [
  'success',
  'denied_rbac',
  'denied_cel_abac',
  'denied_field',
  'denied_rls',
  'denied_scopes',
  'invalid_token',
  'revoked',
  'rate_limited',
  'revocation_unavailable',
] as const;
/** One outcome. */
export type AuthOutcome = (typeof authOutcomes)[number];

/** One request's authentication and authorization decision (a row as written, its outcome typed). */
export interface AuthAuditEntry extends AuthAuditInsert {
  outcome: AuthOutcome;
}

const flushMilliseconds = 500;
const flushSize = 500;
const maxBuffered = 50_000;

/**
 * The auth audit log's writer: entries are buffered in memory and written in one multi-row INSERT
 * every 500 ms (or every 500 entries), so a request never waits on it. If the database refuses a
 * batch the batch is kept and retried with the next one, up to 50,000 entries; beyond that the
 * oldest are dropped and the drop is logged.
 */
export class AuthAuditLog {
  private readonly writer: BufferedWriter<AuthAuditEntry>;

  constructor(
    pool: Pool,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.writer = new BufferedWriter({
      write: (batch) => insertAuthAuditEntries(pool, batch),
      flushAfterMs: flushMilliseconds,
      flushAtSize: flushSize,
      maxBuffered,
      dropped: (dropped) =>
        logger.error({ dropped }, 'auth audit entries dropped: the database has refused them too long'),
      failed: (error, entries) => {
        logger.warn({ err: (error as Error).message, entries }, 'auth audit batch not written; retrying');
        return 'retry';
      },
      retryAfterMs: flushMilliseconds * 4,
    });
  }

  /** Queues an entry (synchronous). */
  record(entry: Omit<AuthAuditEntry, 'at'>): void {
    this.writer.add({ ...entry, at: this.clock.now() });
  }

  /** Writes everything queued so far; resolves when it is stored (or has failed and been re-queued). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Stops the timer and writes what is queued. */
  close(): Promise<void> {
    return this.writer.close();
  }
}
