import pg from 'pg';
import type { Logger } from '../../../platform/logging/logger.js';

/** The channel a transaction notifies when it committed outbox rows it could not deliver itself. */
export const outboxChannel = 'weft_event_outbox';

/**
 * Wakes this process's outbox executor when any instance of the service commits thrown events
 * inside a caller's transaction (a timer firing, a connector job, a call activity, a delivery that
 * threw in turn). Their NOTIFY is part of that transaction, so it arrives only if it commits, and
 * just after. Polling stays the fallback when the connection is down.
 */
export class OutboxListener {
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly wake: () => void,
    private readonly logger: Logger,
  ) {}

  /** Opens the LISTEN connection; reconnects after a failure. */
  async start(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'weft-outbox-listener',
    });
    client.on('notification', (message) => {
      if (message.channel === outboxChannel) this.wake();
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error.message }, 'outbox listener connection failed; reconnecting');
      void client.end().catch(() => undefined);
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${outboxChannel}`);
    this.client = client;
  }

  /** Closes the LISTEN connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}
