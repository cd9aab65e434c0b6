import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { deleteFinishedBatches } from '../batches/batch-repository.js';
import { deleteExpiredBufferedMessages } from '../engine/store/buffered-messages.js';
import { deleteHistoryOf } from '../engine/store/process-history.js';
import { findEndedInstances } from '../engine/store/process-instances.js';
import {
  inFencedTransaction,
  isLeaderLeaseLost,
  type TransactionFence,
} from '../../platform/jobs/leader-fence.js';

/** Options of Housekeeping. */
export interface HousekeepingOptions {
  pool: Pool;
  clock: Clock;
  /** WORKFLOW_HISTORY_RETENTION_DAYS: history of instances ended longer ago than this is deleted. */
  retentionDays: number;
  /** History rows per DELETE (each its own short transaction); 1,000 when not given. */
  batchSize?: number;
  /** Pause between two batches, so the purge never hogs the database; 100 ms when not given. */
  pauseMs?: number;
  /** Between two runs of `start()`'s loop; one hour when not given. */
  intervalMs?: number;
  /**
   * The leader lease's fence: each delete of `start()`'s loop runs in a transaction it checks, so a
   * leader that lost its lease deletes nothing. `runOnce()` (tests, by hand) is not fenced.
   */
  fence?: TransactionFence;
  logger?: Logger;
}

/** What one run deleted. */
export interface HousekeepingResult {
  instances: number;
  historyRows: number;
  batches: number;
  /** Buffered messages deleted because their time to live had passed. */
  expiredMessages: number;
  /** Completed batches (with their items) that finished more than `retentionDays` ago. */
  finishedBatches: number;
}

interface Cursor {
  endedAt: Date;
  id: string;
}

const INSTANCES_PER_PAGE = 100;

/**
 * The leader's housekeeping: deletes expired buffered messages, completed batches older than
 * `retentionDays`, and the `process_history` rows of
 * instances that ended more than `retentionDays` ago, in batches of at most `batchSize` rows with a pause between. The instance rows
 * themselves stay (state, variables, incidents remain readable); only their step-by-step history goes.
 * Instances are walked in order of their end from a cursor kept between runs, so each ended instance
 * is visited about once per process lifetime.
 */
export class Housekeeping {
  private cursor: Cursor | undefined;
  private loop: Promise<void> | undefined;
  private abort: AbortController | undefined;

  constructor(private readonly options: HousekeepingOptions) {}

  /** Deletes everything due for deletion now, batch by batch. */
  async runOnce(signal?: AbortSignal): Promise<HousekeepingResult> {
    return this.run(signal, undefined);
  }

  /** Runs one write, in a fenced transaction when `fence` is given. */
  private write(fence: TransactionFence | undefined, work: (db: Pool | PoolClient) => Promise<number>) {
    return fence ? inFencedTransaction(this.options.pool, fence, work) : work(this.options.pool);
  }

  private async run(signal: AbortSignal | undefined, fence: TransactionFence | undefined) {
    const { pool, clock, retentionDays } = this.options;
    const batchSize = this.options.batchSize ?? 1_000;
    const pauseMs = this.options.pauseMs ?? 100;
    const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000);
    const result: HousekeepingResult = {
      instances: 0,
      historyRows: 0,
      batches: 0,
      expiredMessages: 0,
      finishedBatches: 0,
    };
    result.expiredMessages = await this.deleteExpiredMessages(batchSize, pauseMs, signal, fence);
    result.finishedBatches = await this.deleteFinishedBatches(cutoff, batchSize, pauseMs, signal, fence);
    while (!signal?.aborted) {
      const rows = await findEndedInstances(pool, {
        endedBefore: cutoff,
        after: this.cursor ?? null,
        limit: INSTANCES_PER_PAGE,
      });
      if (rows.length === 0) break;
      const ids = rows.map((row) => row.id);
      let deleted: number;
      do {
        deleted = await this.write(fence, (db) => deleteHistoryOf(db, ids, batchSize));
        result.historyRows += deleted;
        if (deleted > 0) result.batches++;
        if (deleted === batchSize && pauseMs > 0)
          await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
      } while (deleted === batchSize && !signal?.aborted);
      if (signal?.aborted) break;
      result.instances += rows.length;
      const last = rows[rows.length - 1] as { id: string; ended_at: Date };
      this.cursor = { endedAt: last.ended_at, id: last.id };
    }
    if (result.historyRows > 0 || result.expiredMessages > 0 || result.finishedBatches > 0)
      this.options.logger?.info({ ...result, retentionDays }, 'history purged');
    return result;
  }

  // Expired buffered messages are never delivered; without this they would only go when another
  // message is buffered.
  private async deleteExpiredMessages(
    batchSize: number,
    pauseMs: number,
    signal: AbortSignal | undefined,
    fence: TransactionFence | undefined,
  ) {
    let total = 0;
    while (!signal?.aborted) {
      const deleted = await this.write(fence, (db) =>
        deleteExpiredBufferedMessages(db, this.options.clock.now(), batchSize),
      );
      total += deleted;
      if (deleted < batchSize) break;
      if (pauseMs > 0) await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
    }
    return total;
  }

  // A batch's items are one row per instance: kept as long as the history of those instances.
  private async deleteFinishedBatches(
    cutoff: Date,
    batchSize: number,
    pauseMs: number,
    signal: AbortSignal | undefined,
    fence: TransactionFence | undefined,
  ) {
    let total = 0;
    // Batches are deleted a few at a time: each takes up to its total of item rows with it.
    const perDelete = Math.max(1, Math.floor(batchSize / 100));
    while (!signal?.aborted) {
      const deleted = await this.write(fence, (db) => deleteFinishedBatches(db, cutoff, perDelete));
      total += deleted;
      if (deleted < perDelete) break;
      if (pauseMs > 0) await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
    }
    return total;
  }

  /** Runs now and then every interval until `stop()`. */
  start(): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = (async () => {
      while (!abort.signal.aborted) {
        try {
          await this.run(abort.signal, this.options.fence);
        } catch (error) {
          if (isLeaderLeaseLost(error))
            this.options.logger?.info('the leader lease is lost; history housekeeping stopped');
          else this.options.logger?.warn({ err: error }, 'history housekeeping failed; it runs again later');
        }
        await sleep(this.options.intervalMs ?? 3_600_000, undefined, { signal: abort.signal }).catch(
          () => undefined,
        );
      }
    })();
  }

  /** Stops after the current batch. */
  async stop(): Promise<void> {
    this.abort?.abort();
    const loop = this.loop;
    this.loop = undefined;
    await loop;
  }
}
