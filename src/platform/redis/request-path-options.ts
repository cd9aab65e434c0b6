import type { RedisOptions } from 'ioredis';

/** Default longest wait for one Redis command on the request path. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * ioredis options for a client that requests wait on: no command waits longer than
 * `commandTimeoutMs`, whatever the network does.
 *
 * - `commandTimeout` rejects a command that got no answer in time;
 * - `socketTimeout` destroys a connection that owes an answer and stays silent that long (a
 *   blackholed network keeps the socket open), so the client reconnects instead of sending every
 *   later command into the void, and reports "not ready" meanwhile;
 * - no offline queue and no per-request retries: while disconnected a command fails at once;
 * - `connectTimeout` bounds opening the connection; TCP keepalive finds peers that vanished.
 */
export function requestPathRedisOptions(commandTimeoutMs: number): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
    connectTimeout: Math.max(1_000, commandTimeoutMs * 2),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    keepAlive: 10_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
}
