import { ListenConnection } from '../../../platform/database/listen-connection.js';
import type { Logger } from '../../../platform/logging/logger.js';
import type { IdentityCache } from './identity-cache.js';

const channel = 'weft_identity_changed';

/**
 * Keeps an IdentityCache honest across processes: LISTENs on the channel that migration 0021's
 * triggers notify and invalidates the cache on each notification. The cache serves entries only
 * while this connection is up; when it is lost the cache stops serving, and after a reconnection
 * (notifications sent meanwhile were lost) it starts again empty.
 */
export class IdentityChangeListener {
  private readonly connection: ListenConnection;

  constructor(
    connectionString: string,
    private readonly cache: IdentityCache,
    logger: Logger,
  ) {
    this.connection = new ListenConnection({
      connectionString,
      channels: [channel],
      applicationName: 'weft-identity-listener',
      onNotification: () => cache.invalidate(),
      onLost: () => cache.distrust(),
      onReconnected: () => cache.trust(),
      logger,
    });
  }

  /** Opens the LISTEN connection, then lets the cache serve. */
  async start(): Promise<void> {
    await this.connection.start();
    this.cache.trust();
  }

  /** Stops serving from the cache and closes the connection. */
  async close(): Promise<void> {
    this.cache.distrust();
    await this.connection.close();
  }
}
