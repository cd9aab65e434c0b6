import type { Clock } from '../../../platform/clock.js';
import type { Pool } from '../../../platform/database/pool.js';
import type { Logger } from '../../../platform/logging/logger.js';
import { recordApiKeyUses } from './api-key-repository.js';

/**
 * Refreshes `api_keys.last_used_at` in the background. Uses are collected in memory and written in
 * one statement per interval, so a burst of requests costs at most one write per key per interval
 * and the request path never waits for it.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs = 5_000,
  ) {}

  /** Starts the periodic flush. */
  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Notes that `keyId` was used now. */
  touch(keyId: string): void {
    this.pending.set(keyId, this.clock.now());
  }

  /** Writes every pending use in one statement. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await recordApiKeyUses(this.pool, batch);
    } catch (error) {
      // Best effort by design: a lost update of a usage timestamp must not fail anything else.
      this.logger.warn({ err: (error as Error).message, keys: batch.size }, 'could not record API key use');
    }
  }
}
