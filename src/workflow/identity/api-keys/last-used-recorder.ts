import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import { BufferedWriter } from '../../../platform/jobs/buffered-writer.js';
import type { Logger } from '../../../platform/logging/logger.js';
import { recordApiKeyUses } from './api-key-repository.js';

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
      write: (uses) => recordApiKeyUses(pool, new Map(uses.map((use) => [use.keyId, use.usedAt]))),
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
