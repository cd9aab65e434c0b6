import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { JobExecutor } from '../../platform/jobs/job-executor.js';
import { completeFinishedBatches } from './batch-repository.js';
import { claimPendingItems, markItemFailed, markItemsDone, type BatchItem } from './batch-item-repository.js';
import { failureReason, type BatchOperations } from './batch-operations.js';

/** Options of {@link createBatchExecutor}. */
export interface BatchExecutorOptions {
  pool: Pool;
  clock: Clock;
  operations: BatchOperations;
  /** Items per transaction (a chunk); 100 when not given. */
  chunkSize?: number;
  /** Claim loops side by side (one connection each); 2 when not given: one plans while the other writes. */
  concurrency?: number;
  pollIntervalMs?: number;
  logger?: Logger;
}

/**
 * The job executor over `batch_items`: claims a chunk of pending items with FOR UPDATE SKIP LOCKED
 * and runs each item's operation, marking it done in the same transaction. A chunk first runs
 * without savepoints; if an item fails, the chunk is rolled back and run again with a savepoint per
 * item, so the failed item is marked failed with its reason (no retries: an operator looks at it)
 * and the others are done. A crash loses only uncommitted chunks, whose items stay pending.
 */
export function createBatchExecutor(options: BatchExecutorOptions): JobExecutor<BatchItem> {
  const { operations } = options;
  return new JobExecutor<BatchItem>({
    name: 'batches',
    pool: options.pool,
    clock: options.clock,
    // As the timer executor's: the engine's set-wise statements are planned once per connection.
    begin: 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan',
    fetch: async (client, now, limit) => {
      await completeFinishedBatches(client, now);
      return claimPendingItems(client, limit);
    },
    handle: async (item, client, now) => {
      const operation = operations.get(item.type);
      if (operation === undefined)
        throw new Error(`no operation is registered for batches of type ${item.type}`);
      try {
        await operation.run(
          { client, now, batchId: item.batchId, orgId: item.orgId },
          item.instanceId,
          item.params,
        );
      } catch (error) {
        // The executor keeps only the message: the reason carries a refusal's problems too.
        throw new Error(failureReason(error), { cause: error });
      }
    },
    handleAll: async (items, client, now) => {
      // The items of one batch share its type and parameters.
      const byBatch = new Map<string, BatchItem[]>();
      for (const item of items) byBatch.set(item.batchId, [...(byBatch.get(item.batchId) ?? []), item]);
      for (const group of byBatch.values()) {
        const first = group[0];
        const operation = first === undefined ? undefined : operations.get(first.type);
        if (first === undefined || operation === undefined) throw new Error('no operation for a batch type');
        const context = { client, now, batchId: first.batchId, orgId: first.orgId };
        const ids = group.map((item) => item.instanceId);
        if (operation.runAll) await operation.runAll(context, ids, first.params);
        else for (const id of ids) await operation.run(context, id, first.params);
      }
    },
    complete: (item, client, now) => markItemsDone(client, [item], now),
    completeAll: (items, client, now) => markItemsDone(client, items, now),
    fail: async (item, message, client, now) => {
      await markItemFailed(client, item, message, now);
      return 0;
    },
    onError: () => Promise.resolve(),
    batchSize: options.chunkSize ?? 100,
    concurrency: options.concurrency ?? 2,
    savepoints: 'after-failure',
    pollIntervalMs: options.pollIntervalMs ?? 500,
    logger: options.logger,
  });
}
