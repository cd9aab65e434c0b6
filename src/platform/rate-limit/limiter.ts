import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from '../logging/logger.js';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, requestPathRedisOptions } from '../redis/request-path-options.js';

/** Where rate-limit counters live: Redis (shared by every instance) or this process. */
export interface RateLimitStore {
  /** A limiter allowing `points` per `durationSeconds` per key, under a key prefix. */
  limiter(prefix: string, points: number, durationSeconds: number): RateLimiterAbstract;
  close(): Promise<void>;
}

/** Result of a rejected consume: how long until the key may try again. */
export function retryAfterSeconds(rejection: unknown): number | undefined {
  return rejection instanceof RateLimiterRes
    ? Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
    : undefined;
}

/**
 * Creates the store: Redis when `redisUrl` is set, in-process otherwise (logged as single-instance).
 * A Redis that does not answer within `commandTimeoutMs`, or is not connected, never holds a
 * request: the limiter counts in process meanwhile (its insurance limiter).
 */
export function createRateLimitStore(
  redisUrl: string | undefined,
  logger: Logger,
  commandTimeoutMs: number = DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
): RateLimitStore {
  if (!redisUrl) {
    logger.info('REDIS_URL is unset: rate-limit counters are kept in this process (single instance only)');
    return {
      limiter: (keyPrefix, points, duration) => new RateLimiterMemory({ keyPrefix, points, duration }),
      close: () => Promise.resolve(),
    };
  }
  const redis = new Redis(redisUrl, requestPathRedisOptions(commandTimeoutMs));
  redis.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  return {
    limiter: (keyPrefix, points, duration) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `weft:${keyPrefix}`,
        points,
        duration,
        // When Redis is down, fall back to per-process counters rather than letting every attempt through.
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
        // Not connected (down, or reconnecting after a silent socket was dropped): count in process at once.
        rejectIfRedisNotReady: true,
      }),
    close: async () => {
      redis.disconnect();
      await Promise.resolve();
    },
  };
}
