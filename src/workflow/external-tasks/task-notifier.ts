import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from '../../platform/logging/logger.js';

const channel = 'weft_external_tasks';

/**
 * Wakes long-polling fetch-and-lock requests when new external tasks are committed, on any
 * instance of the service: inserts `pg_notify('weft_external_tasks', topic)`, and one LISTEN
 * connection per process turns those into local events. Polling remains the fallback (retries
 * becoming due and expired locks send no notification).
 */
export class TaskNotifier {
  private readonly events = new EventEmitter();
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
  }

  /** Opens the LISTEN connection; reconnects after a failure. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'weft-task-notifier' });
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.events.emit(message.payload);
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error.message }, 'task notifier connection failed; reconnecting');
      void client.end().catch(() => undefined);
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${channel}`);
    this.client = client;
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
    await this.client?.end().catch(() => undefined);
  }
}
