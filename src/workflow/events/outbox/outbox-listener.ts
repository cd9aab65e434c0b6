import { ListenConnection } from '../../../platform/database/listen-connection.js';
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
  private readonly connection: ListenConnection;

  constructor(connectionString: string, wake: () => void, logger: Logger) {
    this.connection = new ListenConnection({
      connectionString,
      channels: [outboxChannel],
      applicationName: 'weft-outbox-listener',
      onNotification: () => wake(),
      // Rows committed while the connection was down notified no one: look once now.
      onReconnected: () => wake(),
      logger,
    });
  }

  /** Opens the LISTEN connection; reconnects after a failure. */
  async start(): Promise<void> {
    await this.connection.start();
  }

  /** Closes the LISTEN connection. */
  async close(): Promise<void> {
    await this.connection.close();
  }
}
