import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import { deleteInBatches } from '../../platform/jobs/batched-delete.js';
import type { Logger } from '../../platform/logging/logger.js';
import { deleteAuthAuditEntriesBefore } from './auth-audit-repository.js';

/** Options of the auth audit retention job. */
export interface AuthAuditRetentionOptions {
  /** The owner login's pool: the runtime login may only append to the log. */
  pool: Pool;
  clock: Clock;
  logger: Logger;
  /** RECORDS_AUTH_AUDIT_RETENTION_DAYS: entries written longer ago than this are deleted. */
  retentionDays: number;
  /** Entries per DELETE, each its own short transaction (default 5,000). */
  batchSize?: number;
  /** Pause between two full batches (default 100 ms). */
  pauseMs?: number;
}

const dayMilliseconds = 86_400_000;

/**
 * Deletes the `records.auth_audit` entries older than the retention, oldest first, in bounded
 * batches. Every instance runs it (there is no leader in records): `FOR UPDATE SKIP LOCKED` keeps
 * two instances' batches apart, so neither waits on the other. `runOnce()` drives it in tests;
 * `start()` runs it now and then on an interval.
 */
export class AuthAuditRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();

  constructor(private readonly options: AuthAuditRetentionOptions) {}

  /** Deletes every entry past the retention now; resolves with how many. */
  runOnce(): Promise<number> {
    const run = this.running.then(() => this.purge());
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Runs at once, then every `intervalMilliseconds` (failures are logged; the next run tries again). */
  start(intervalMilliseconds = 3_600_000): void {
    const tick = () => {
      this.runOnce().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'auth audit retention failed; it runs again later'),
      );
    };
    tick();
    this.timer = setInterval(tick, intervalMilliseconds);
    this.timer.unref();
  }

  /** Stops the interval, ends the current run after its batch and waits for it. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.abort.abort();
    await this.running;
  }

  private async purge(): Promise<number> {
    const { pool, clock, retentionDays } = this.options;
    const before = new Date(clock.now().getTime() - retentionDays * dayMilliseconds);
    const { deleted } = await deleteInBatches((limit) => deleteAuthAuditEntriesBefore(pool, before, limit), {
      batchSize: this.options.batchSize ?? 5_000,
      pauseMs: this.options.pauseMs ?? 100,
      signal: this.abort.signal,
    });
    if (deleted > 0)
      this.options.logger.info({ deleted, retentionDays }, 'auth audit entries past retention deleted');
    return deleted;
  }
}
