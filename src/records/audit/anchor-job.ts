import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import { chainHeadsAfter, storedEventHashes, type ChainHead } from './audit-repository.js';
import type { AnchorStore } from './anchor-store.js';
import type { Checkpoint } from './checkpoint.js';

/** Options of the anchor job. */
export interface AuditAnchorJobOptions {
  pool: Pool;
  store: AnchorStore;
  clock: Clock;
  logger: Logger;
  /** Heads per checkpoint line (default 1000). */
  headsPerCheckpoint?: number;
}

/** What one run did. */
export interface AnchorRun {
  /** Chain heads signed and appended. */
  anchored: number;
  /** Chains whose anchored event no longer has its anchored hash: left with their old anchor. */
  refused: number;
}

/**
 * Signs the audit chains' heads into the anchor store (docs/records/audit.md, "Anchors"), on an
 * interval, off the write path. A run reads the head of every chain with an event after the window
 * start and appends the new ones as signed checkpoints. The window starts where the run before the
 * last one ended, so an event whose transaction committed after a run that had already passed its
 * id is still seen by the next one. A chain whose previously anchored event changed is not
 * re-anchored: signing the rewritten head would bless the rewrite. Instances sharing an anchor
 * folder take turns under an advisory lock; `runOnce()` drives it in tests.
 */
export class AuditAnchorJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: AuditAnchorJobOptions) {}

  /** Anchors the heads written since the last runs; resolves with what it did. */
  runOnce(): Promise<AnchorRun> {
    const run = this.running.then(() => this.anchor());
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Runs the job every `intervalMilliseconds` (failures are logged; the next run tries again). */
  start(intervalMilliseconds: number): void {
    this.timer = setInterval(() => {
      this.runOnce().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'audit anchor job failed'),
      );
    }, intervalMilliseconds);
    this.timer.unref();
  }

  /** Stops the interval and waits for a run in progress. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private anchor(): Promise<AnchorRun> {
    const { pool, store, clock, logger } = this.options;
    const perLine = this.options.headsPerCheckpoint ?? 1000;
    return withTransaction(pool, async (client) => {
      const { rows } = await client.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtext('weft_records_audit_anchor')) AS locked`,
      );
      if (!rows[0]?.locked) return { anchored: 0, refused: 0 };
      return store.withLatest(async ({ last, problem, headOf, append }) => {
        if (problem !== undefined) {
          logger.error({ file: store.file, problem }, 'audit anchor store is not intact: not anchoring');
          return { anchored: 0, refused: 0 };
        }
        const { heads, upTo } = await chainHeadsAfter(client, last?.next_from ?? '0');
        const fresh: ChainHead[] = [];
        const previous = new Map<ChainHead, string>();
        for (const head of heads) {
          const anchored = headOf(head.schema_path, head.entity_id);
          if (anchored?.eventId === head.event_id && anchored.hash === head.hash) continue;
          fresh.push(head);
          if (anchored) previous.set(head, anchored.eventId);
        }
        const stored = await storedEventHashes(client, [...new Set(previous.values())]);
        const accepted: Checkpoint['heads'] = [];
        let refused = 0;
        for (const head of fresh) {
          const anchoredId = previous.get(head);
          const anchored = anchoredId === undefined ? undefined : headOf(head.schema_path, head.entity_id);
          if (anchored && stored.get(anchored.eventId) !== anchored.hash) {
            refused += 1;
            logger.error(
              { schema: head.schema_path, entity_id: head.entity_id, event_id: anchored.eventId },
              'audit chain no longer matches its anchor: not re-anchoring it',
            );
            continue;
          }
          accepted.push([head.schema_path, head.entity_id, head.event_id, head.hash]);
        }
        const at = clock.now().toISOString();
        const nextFrom = last?.up_to_event_id ?? '0';
        for (let start = 0; start < accepted.length; start += perLine)
          await append({ at, up_to_event_id: upTo, heads: accepted.slice(start, start + perLine) }, nextFrom);
        return { anchored: accepted.length, refused };
      });
    });
  }
}
