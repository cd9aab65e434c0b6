import { EventEmitter } from 'node:events';
import { ListenConnection } from '../../platform/database/listen-connection.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';

const channel = 'weft_external_tasks';
// One cross-instance NOTIFY per topic per window is enough to wake every long poll.
const notifyWindowMs = 25;

/** Tells long-polling fetches that tasks of some topics were committed. */
export interface TaskAnnouncer {
  announce(topics: Iterable<string>): void;
}

/**
 * Wakes long-polling fetch-and-lock requests when new external tasks are committed, on any instance
 * of the service. `announce` (called after commit) wakes this process's waiters at once and sends a
 * NOTIFY, at most one per topic per 25 ms and outside the engine's transaction — NOTIFY inside it
 * would serialise every commit on PostgreSQL's notification queue. One LISTEN connection per process
 * turns other instances' notifications into local wake-ups. Polling stays the fallback (retries
 * becoming due and expired locks announce nothing).
 */
export class TaskNotifier implements TaskAnnouncer {
  private readonly events = new EventEmitter();
  private readonly pendingTopics = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly connection: ListenConnection;
  private closed = false;

  constructor(
    connectionString: string,
    private readonly pool: Pool,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
    this.connection = new ListenConnection({
      connectionString,
      channels: [channel],
      applicationName: 'weft-task-notifier',
      onNotification: (_channel, payload) => {
        if (payload) this.events.emit(payload);
      },
      logger,
    });
  }

  /** Opens the LISTEN connection; reconnects after a failure. */
  async start(): Promise<void> {
    this.closed = false;
    await this.connection.start();
  }

  /** Wakes waiters of `topics` here now, and on other instances through a coalesced NOTIFY. */
  announce(topics: Iterable<string>): void {
    for (const topic of topics) {
      this.events.emit(topic);
      this.pendingTopics.add(topic);
    }
    if (this.pendingTopics.size > 0 && this.flushTimer === undefined && !this.closed) {
      this.flushTimer = setTimeout(() => void this.flush(), notifyWindowMs);
    }
  }

  /** Resolves when a task for one of `topics` is committed, or after `timeoutMs`. */
  waitFor(topics: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        for (const topic of topics) this.events.off(topic, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      for (const topic of topics) this.events.once(topic, done);
      signal?.addEventListener('abort', done);
    });
  }

  /** Closes the LISTEN connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.flushTimer);
    await this.connection.close();
  }

  private async flush(): Promise<void> {
    this.flushTimer = undefined;
    const topics = [...this.pendingTopics];
    this.pendingTopics.clear();
    try {
      await this.pool.query({
        name: 'workflow.external-tasks.notify',
        text: `SELECT pg_notify('${channel}', t) FROM unnest($1::text[]) AS t`,
        values: [topics],
      });
    } catch (error) {
      // Best effort: other instances' long polls still re-check every second.
      this.logger.warn({ err: (error as Error).message }, 'could not notify other instances of new tasks');
    }
  }
}
