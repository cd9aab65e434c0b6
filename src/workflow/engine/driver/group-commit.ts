/** What became of one item of a {@link GroupCommit} batch. */
export type GroupOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

interface Queued<I, O> {
  item: I;
  settle: (outcome: GroupOutcome<O>) => void;
}

/**
 * Writes items in batches, one batch at a time: an item that arrives while no batch is being
 * written is written at once, alone; items that arrive while one is being written wait for it and
 * then go together in the next (group commit). A lone caller pays no delay; many concurrent callers
 * share one statement and one commit. Items with the same `key` never share a batch (one statement
 * cannot update a row twice): the later waits for the next.
 */
export class GroupCommit<I, O> {
  private queue: Queued<I, O>[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: I[]) => Promise<GroupOutcome<O>[]>,
    private readonly options: {
      maxBatch: number;
      key?: (item: I) => string;
      /**
       * True for an error the items queued meanwhile would meet as well (the database is out of
       * reach): when every item of a batch failed with one, the queued items fail with it at once
       * instead of each batch waiting out the same timeouts in turn.
       */
      failsQueued?: (error: unknown) => boolean;
    },
  ) {}

  /** Queues `item`; resolves with its outcome once its batch is written. */
  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({
        item,
        settle: (outcome) => {
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error)));
        },
      });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        let outcomes: GroupOutcome<O>[];
        try {
          outcomes = await this.write(batch.map((queued) => queued.item));
        } catch (error) {
          outcomes = batch.map(() => ({ ok: false, error }));
        }
        for (const [index, queued] of batch.entries()) {
          queued.settle(outcomes[index] ?? { ok: false, error: new Error('a batch write lost an item') });
        }
        const shared = this.sharedFailure(outcomes);
        if (shared !== undefined) {
          for (const queued of this.queue.splice(0)) queued.settle(shared);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private sharedFailure(outcomes: readonly GroupOutcome<O>[]): GroupOutcome<O> | undefined {
    const failsQueued = this.options.failsQueued;
    if (failsQueued === undefined || outcomes.length === 0) return undefined;
    const first = outcomes[0];
    if (first === undefined || first.ok || !failsQueued(first.error)) return undefined;
    return outcomes.every((outcome) => !outcome.ok && failsQueued(outcome.error)) ? first : undefined;
  }

  private takeBatch(): Queued<I, O>[] {
    const batch: Queued<I, O>[] = [];
    const keys = new Set<string>();
    const later: Queued<I, O>[] = [];
    for (const queued of this.queue) {
      const key = this.options.key?.(queued.item);
      if (batch.length < this.options.maxBatch && (key === undefined || !keys.has(key))) {
        if (key !== undefined) keys.add(key);
        batch.push(queued);
      } else later.push(queued);
    }
    this.queue = later;
    return batch;
  }
}
