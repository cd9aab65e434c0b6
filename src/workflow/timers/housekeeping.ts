import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { deleteFinishedBatches } from '../batches/batch-repository.js';
import { deleteExpiredBufferedMessages } from '../engine/store/buffered-messages.js';
import { deleteHistoryOf } from '../engine/store/process-history.js';
import { listHistoryRetentions } from '../engine/store/process-definitions.js';
import { findEndedInstances } from '../engine/store/process-instances.js';
import { purgeFinishedInstances } from './instance-retention.js';
import {
  inFencedTransaction,
  isLeaderLeaseLost,
  type TransactionFence,
} from '../../platform/jobs/leader-fence.js';

/** Options of Housekeeping. */
export interface HousekeepingOptions {
  pool: Pool;
  clock: Clock;
  /**
   * WORKFLOW_HISTORY_RETENTION_DAYS: history of instances ended longer ago than this is deleted,
   * unless their definition version has a history time to live of its own.
   */
  retentionDays: number;
  /**
   * WORKFLOW_INSTANCE_RETENTION_DAYS: the rows of instances ended longer ago than this, and than
   * their history's retention, are deleted; undefined: instance rows are kept.
   */
  instanceRetentionDays?: number | undefined;
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
  /** Finished instances deleted, rows and all, past `instanceRetentionDays`. */
  deletedInstances: number;
}

interface Cursor {
  endedAt: Date;
  id: string;
}

const INSTANCES_PER_PAGE = 100;
// Instances deleted per transaction: each takes its dependent rows with it.
const INSTANCES_PER_DELETE = 100;
const DAY_MS = 86_400_000;
// An end commits a moment after its `ended_at`: an instance that ended this recently may not be
// visible yet, and a version's cursor must not pass it (a time to live of 0 would otherwise race).
const SETTLE_MS = 60_000;

/**
 * The leader's housekeeping: deletes expired buffered messages, completed batches older than
 * `retentionDays`, and the `process_history` rows of instances that ended longer ago than their
 * definition version's history time to live (Camunda's `historyTimeToLive`), or than
 * `retentionDays` when the version has none, in batches of at most `batchSize` rows with a pause
 * between. With `instanceRetentionDays` set, it then deletes the finished instances themselves
 * (rows, variables, incidents and all) once they ended longer ago than both that and their
 * history's retention, a page of instances per transaction; otherwise the instance rows stay.
 *
 * Each version has a cutoff of its own, so the ended instances are walked version by version, each
 * in order of their end from a cursor of that version kept between runs. A single cursor over all
 * ended instances would be wrong: walking up to the earliest cutoff it would pass an instance whose
 * longer time to live has not run out yet, and that instance, ended before the cursor, would never
 * be visited again. Within one version the cutoff only moves forward with the clock, so every
 * instance behind the version's cursor has been purged. When an operator shortens the time to live,
 * the cutoff jumps forward and the walk goes on from the cursor; when they lengthen it, the cutoff
 * moves back, and what lies between it and the cursor has already been purged. A run probes each
 * version once (one range of process_instances_definition_ended_idx) and then reads only instances
 * due; each ended instance is visited about once per process lifetime.
 */
export class Housekeeping {
  /** Per definition version: the last instance whose history was purged. */
  private readonly cursors = new Map<string, Cursor>();
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
    const now = clock.now().getTime();
    const cutoff = new Date(now - retentionDays * DAY_MS);
    const result: HousekeepingResult = {
      instances: 0,
      historyRows: 0,
      batches: 0,
      expiredMessages: 0,
      finishedBatches: 0,
      deletedInstances: 0,
    };
    result.expiredMessages = await this.deleteExpiredMessages(batchSize, pauseMs, signal, fence);
    result.finishedBatches = await this.deleteFinishedBatches(cutoff, batchSize, pauseMs, signal, fence);
    const versions = await listHistoryRetentions(pool);
    const listed = new Set(versions.map((version) => version.id));
    for (const id of this.cursors.keys()) if (!listed.has(id)) this.cursors.delete(id);
    for (const version of versions) {
      if (signal?.aborted) break;
      const days = version.history_time_to_live ?? retentionDays;
      const endedBefore = Math.min(now - days * DAY_MS, now - SETTLE_MS);
      // Nothing ended before 1970; a time to live of millions of days would not even make a date.
      if (endedBefore <= 0) continue;
      await this.purgeHistoryOf(version.id, new Date(endedBefore), result, signal, fence);
    }
    const instanceDays = this.options.instanceRetentionDays;
    if (instanceDays !== undefined)
      await this.purgeInstances(versions, instanceDays, now, result, signal, fence);
    if (
      result.historyRows > 0 ||
      result.expiredMessages > 0 ||
      result.finishedBatches > 0 ||
      result.deletedInstances > 0
    )
      this.options.logger?.info({ ...result, retentionDays, instanceDays }, 'history purged');
    return result;
  }

  // The history of one version's instances ended before `endedBefore`, from the version's cursor.
  private async purgeHistoryOf(
    definitionId: string,
    endedBefore: Date,
    result: HousekeepingResult,
    signal: AbortSignal | undefined,
    fence: TransactionFence | undefined,
  ) {
    const batchSize = this.options.batchSize ?? 1_000;
    const pauseMs = this.options.pauseMs ?? 100;
    while (!signal?.aborted) {
      const rows = await findEndedInstances(this.options.pool, {
        definitionId,
        endedBefore,
        after: this.cursors.get(definitionId) ?? null,
        limit: INSTANCES_PER_PAGE,
      });
      if (rows.length === 0) return;
      const ids = rows.map((row) => row.id);
      let deleted: number;
      do {
        deleted = await this.write(fence, (db) => deleteHistoryOf(db, ids, batchSize));
        result.historyRows += deleted;
        if (deleted > 0) result.batches++;
        if (deleted === batchSize && pauseMs > 0)
          await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
      } while (deleted === batchSize && !signal?.aborted);
      if (signal?.aborted) return;
      result.instances += rows.length;
      const last = rows[rows.length - 1] as { id: string; ended_at: Date };
      this.cursors.set(definitionId, { endedAt: last.ended_at, id: last.id });
      if (rows.length < INSTANCES_PER_PAGE) return;
    }
  }

  // Finished instances, rows and all, version by version: each version has its own cutoff.
  private async purgeInstances(
    versions: readonly { id: string; history_time_to_live: number | null }[],
    instanceDays: number,
    now: number,
    result: HousekeepingResult,
    signal: AbortSignal | undefined,
    fence: TransactionFence | undefined,
  ) {
    const { pool, retentionDays } = this.options;
    const batchSize = this.options.batchSize ?? 1_000;
    for (const version of versions) {
      if (signal?.aborted) return;
      // An instance row is the head of its history: it never goes before the history does.
      const days = Math.max(instanceDays, version.history_time_to_live ?? retentionDays);
      const endedBefore = now - days * DAY_MS;
      if (endedBefore <= 0) continue;
      const purged = await purgeFinishedInstances({
        definitionId: version.id,
        endedBefore: new Date(endedBefore),
        perDelete: Math.min(INSTANCES_PER_DELETE, batchSize),
        historyBatchSize: batchSize,
        pauseMs: this.options.pauseMs ?? 100,
        signal,
        transaction: (work) => (fence ? inFencedTransaction(pool, fence, work) : withTransaction(pool, work)),
      });
      result.deletedInstances += purged.instances;
      result.historyRows += purged.historyRows;
    }
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
