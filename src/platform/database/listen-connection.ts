import pg from 'pg';
import type { Logger } from '../logging/logger.js';
import { describeDatabaseError } from './pool.js';

/** Options of ListenConnection. */
export interface ListenConnectionOptions {
  connectionString: string;
  /** Channels to LISTEN on (plain identifiers). */
  channels: readonly string[];
  /** Shown in pg_stat_activity and in log lines. */
  applicationName: string;
  onNotification(channel: string, payload: string | undefined): void;
  /** Called after every reconnection (notifications sent meanwhile were lost). */
  onReconnected?(): void;
  /** Called when the connection is found lost, before reconnecting (notifications are missed from now). */
  onLost?(): void;
  logger: Logger;
  /** First delay before reconnecting, doubled up to `maxRetryMs` (defaults 1 s and 30 s). */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * How often the idle connection proves it still reaches the server (`SELECT 1`), and how long that
   * may take (defaults 10 s and 5 s). A LISTEN connection sends nothing on its own, so without this
   * a blackholed network (sockets open, nothing forwarded) would leave it deaf forever.
   */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
}

/**
 * A dedicated connection that LISTENs on some channels and survives the loss of its backend (a
 * server restart, `pg_terminate_backend`, a network cut): the failure is logged once, without the
 * connection's parameters, and the connection is opened again with backoff until it succeeds or
 * `close` is called. A heartbeat notices a connection that silently stopped answering and treats it
 * as lost. Notifications sent while it was down are lost; callers keep a polling fallback.
 */
export class ListenConnection {
  private client: pg.Client | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(private readonly options: ListenConnectionOptions) {}

  /** Opens the connection; rejects if the first attempt fails (nothing is retried then). */
  async start(): Promise<void> {
    this.closed = false;
    await this.open();
  }

  /** Closes the connection and stops reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      query_timeout: this.heartbeatTimeoutMs(),
    });
    client.on('notification', (message) => {
      if (client === this.client) this.options.onNotification(message.channel, message.payload);
    });
    // pg emits 'error' more than once for one loss (the server's message, then the socket's end).
    client.on('error', (error: Error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection closed')));
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.startHeartbeat(client);
  }

  private heartbeatTimeoutMs(): number {
    return this.options.heartbeatTimeoutMs ?? 5_000;
  }

  private startHeartbeat(client: pg.Client): void {
    clearInterval(this.heartbeatTimer);
    let pending = false;
    this.heartbeatTimer = setInterval(() => {
      if (pending || client !== this.client) return;
      pending = true;
      client.query({ text: 'SELECT 1', query_timeout: this.heartbeatTimeoutMs() } as pg.QueryConfig).then(
        () => {
          pending = false;
        },
        (error: unknown) => this.lost(client, error instanceof Error ? error : new Error(String(error))),
      );
    }, this.options.heartbeatMs ?? 10_000);
    this.heartbeatTimer.unref();
  }

  private lost(client: pg.Client, error: Error): void {
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.heartbeatTimer);
    void client.end().catch(() => undefined);
    this.options.onLost?.();
    this.options.logger.warn(
      { err: describeDatabaseError(error), connection: this.options.applicationName },
      'LISTEN connection lost; reconnecting',
    );
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const base = this.options.retryMs ?? 1_000;
    const delay = Math.min(base * 2 ** this.failures, this.options.maxRetryMs ?? 30_000);
    this.retryTimer = setTimeout(() => void this.reconnect(), delay);
    this.retryTimer.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closed) return;
    try {
      await this.open();
    } catch (error) {
      if (this.failures === 0)
        this.options.logger.warn(
          { err: describeDatabaseError(error), connection: this.options.applicationName },
          'LISTEN connection cannot reconnect yet; retrying with backoff',
        );
      this.failures++;
      this.scheduleReconnect();
      return;
    }
    if (this.closed) return;
    this.failures = 0;
    this.options.logger.info({ connection: this.options.applicationName }, 'LISTEN connection restored');
    this.options.onReconnected?.();
  }
}
