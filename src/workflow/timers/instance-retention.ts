import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolClient } from '../../platform/database/pool.js';
import { deleteInBatches } from '../../platform/jobs/batched-delete.js';
import { deleteHistoryOf } from '../engine/store/process-history.js';
import { claimRemovableInstances, deleteEndedInstances } from '../engine/store/process-instances.js';

/** Runs `work` in one transaction (fenced by the leader lease in the leader's loop). */
export type RunInTransaction = <T>(work: (client: PoolClient) => Promise<T>) => Promise<T>;

/** What deleting one version's finished instances removed. */
export interface InstancePurgeResult {
  instances: number;
  /** History rows still left of those instances, deleted with them. */
  historyRows: number;
}

/**
 * Deletes the finished instances of one definition version that ended before `endedBefore`, oldest
 * end first, `perDelete` instances per transaction with a pause between: claim them (`FOR UPDATE
 * SKIP LOCKED`; an instance whose parent or a child still runs is never claimed), delete what is
 * left of their history in batches of `historyBatchSize`, then the instance rows, whose dependent
 * rows go by `ON DELETE CASCADE`. Deleted rows leave the index range, so no cursor is kept; the
 * few instances kept for a running relative are passed again by each claim.
 */
export async function purgeFinishedInstances(input: {
  definitionId: string;
  endedBefore: Date;
  perDelete: number;
  historyBatchSize: number;
  pauseMs: number;
  signal: AbortSignal | undefined;
  transaction: RunInTransaction;
}): Promise<InstancePurgeResult> {
  const result: InstancePurgeResult = { instances: 0, historyRows: 0 };
  while (!input.signal?.aborted) {
    const page = await input.transaction(async (client) => {
      const ids = await claimRemovableInstances(client, {
        definitionId: input.definitionId,
        endedBefore: input.endedBefore,
        limit: input.perDelete,
      });
      if (ids.length === 0) return { claimed: 0, instances: 0, historyRows: 0 };
      // History has no foreign key to its instance: it goes first, or it would be left behind.
      const history = await deleteInBatches((limit) => deleteHistoryOf(client, ids, limit), {
        batchSize: input.historyBatchSize,
        pauseMs: 0,
      });
      const instances = await deleteEndedInstances(client, ids);
      return { claimed: ids.length, instances, historyRows: history.deleted };
    });
    result.instances += page.instances;
    result.historyRows += page.historyRows;
    if (page.claimed < input.perDelete) break;
    if (input.pauseMs > 0)
      await sleep(input.pauseMs, undefined, { signal: input.signal }).catch(() => undefined);
  }
  return result;
}
