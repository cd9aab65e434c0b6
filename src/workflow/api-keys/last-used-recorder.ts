import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import { BufferedWriter } from '../../platform/jobs/buffered-writer.js';
import type { Logger } from '../../platform/logging/logger.js';

/**
 * Refreshes `api_keys.last_used_at` in the background. Uses are collected in memory (the latest per
 * key) and written in one statement at most `intervalMs` after the first, so a burst of requests
 * costs at most one write per key per interval and the request path never waits for it.
 */
export class LastUsedRecorder {
  private readonly writer: BufferedWriter<{ keyId: string; usedAt: Date }>;

  constructor(
    pool: Pool,
    private readonly clock: Clock,
    logger: Logger,
    intervalMs = 5_000,
  ) {
    this.writer = new BufferedWriter({
      write: (uses) => touchLastUsed(pool, uses),
      key: (use) => use.keyId,
      flushAfterMs: intervalMs,
      failed: (error, keys) => {
        // Best effort by design: a lost update of a usage timestamp must not fail anything else.
        logger.warn({ err: (error as Error).message, keys }, 'could not record API key use');
        return 'drop';
      },
    });
  }

  /** Notes that `keyId` was used now. */
  touch(keyId: string): void {
    this.writer.add({ keyId, usedAt: this.clock.now() });
  }

  /** Writes every pending use in one statement. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Writes what is left. */
  stop(): Promise<void> {
    return this.writer.close();
  }
}

async function touchLastUsed(pool: Pool, uses: { keyId: string; usedAt: Date }[]): Promise<void> {
  await pool.query({
    name: 'workflow.api-keys.touch-last-used',
    text: `UPDATE api_keys k SET last_used_at = u.used_at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
           WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
    values: [uses.map((use) => use.keyId), uses.map((use) => use.usedAt)],
  });
}
