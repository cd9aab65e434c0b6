import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { deleteExpiredBufferedMessages } from '../events/buffered-messages.js';

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
  logger?: Logger;
}

/** What one run deleted. */
export interface HousekeepingResult {
  instances: number;
  historyRows: number;
  batches: number;
  /** Buffered messages deleted because their time to live had passed. */
  expiredMessages: number;
}

interface Cursor {
  endedAt: Date;
  id: string;
}

const INSTANCES_PER_PAGE = 100;

/**
 * The leader's housekeeping: deletes expired buffered messages, and the `process_history` rows of
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
    const { pool, clock, retentionDays } = this.options;
    const batchSize = this.options.batchSize ?? 1_000;
    const pauseMs = this.options.pauseMs ?? 100;
    const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000);
    const result: HousekeepingResult = { instances: 0, historyRows: 0, batches: 0, expiredMessages: 0 };
    result.expiredMessages = await this.deleteExpiredMessages(batchSize, pauseMs, signal);
    while (!signal?.aborted) {
      const { rows } = await pool.query<{ id: string; ended_at: Date }>({
        name: 'workflow.housekeeping.ended-instances',
        text: `SELECT id, ended_at FROM process_instances
               WHERE ended_at IS NOT NULL AND ended_at < $1
                 AND ($2::timestamptz IS NULL OR (ended_at, id) > ($2, $3::uuid))
               ORDER BY ended_at, id
               LIMIT $4`,
        values: [cutoff, this.cursor?.endedAt ?? null, this.cursor?.id ?? null, INSTANCES_PER_PAGE],
      });
      if (rows.length === 0) break;
      const ids = rows.map((row) => row.id);
      let deleted: number;
      do {
        const outcome = await pool.query({
          name: 'workflow.housekeeping.delete-history',
          text: `DELETE FROM process_history WHERE id IN (
                   SELECT id FROM process_history WHERE process_instance_id = ANY($1::uuid[]) LIMIT $2)`,
          values: [ids, batchSize],
        });
        deleted = outcome.rowCount ?? 0;
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
    if (result.historyRows > 0 || result.expiredMessages > 0)
      this.options.logger?.info({ ...result, retentionDays }, 'history purged');
    return result;
  }

  // Expired buffered messages are never delivered; without this they would only go when another
  // message is buffered.
  private async deleteExpiredMessages(batchSize: number, pauseMs: number, signal?: AbortSignal) {
    let total = 0;
    while (!signal?.aborted) {
      const deleted = await deleteExpiredBufferedMessages(
        this.options.pool,
        this.options.clock.now(),
        batchSize,
      );
      total += deleted;
      if (deleted < batchSize) break;
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
          await this.runOnce(abort.signal);
        } catch (error) {
          this.options.logger?.warn({ err: error }, 'history housekeeping failed; it runs again later');
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
