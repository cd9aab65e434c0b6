import { setTimeout as sleep } from 'node:timers/promises';

/** How `deleteInBatches` paces its deletes. */
export interface BatchedDeleteOptions {
  /** Rows one delete may remove at most. */
  batchSize: number;
  /** Pause between two full batches, so a backlog never hogs the database. */
  pauseMs: number;
  /** Stops after the current batch when aborted. */
  signal?: AbortSignal | undefined;
}

/** What `deleteInBatches` removed. */
export interface BatchedDeleteResult {
  deleted: number;
  /** Deletes that removed at least one row. */
  batches: number;
}

/**
 * Runs `deleteBatch(limit)` (one bounded DELETE in its own short transaction) until it removes
 * fewer than `batchSize` rows, pausing between full batches: a retention purge that never holds
 * many locks at once, whatever the backlog.
 */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  options: BatchedDeleteOptions,
): Promise<BatchedDeleteResult> {
  const result: BatchedDeleteResult = { deleted: 0, batches: 0 };
  while (!options.signal?.aborted) {
    const deleted = await deleteBatch(options.batchSize);
    result.deleted += deleted;
    if (deleted > 0) result.batches++;
    if (deleted < options.batchSize) break;
    if (options.pauseMs > 0)
      await sleep(options.pauseMs, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return result;
}
