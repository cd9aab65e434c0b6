import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from '../logging/logger.js';

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

/** Creates the store: Redis when `redisUrl` is set, in-process otherwise (logged as single-instance). */
export function createRateLimitStore(redisUrl: string | undefined, logger: Logger): RateLimitStore {
  if (!redisUrl) {
    logger.info('REDIS_URL is unset: rate-limit counters are kept in this process (single instance only)');
    return {
      limiter: (keyPrefix, points, duration) => new RateLimiterMemory({ keyPrefix, points, duration }),
      close: () => Promise.resolve(),
    };
  }
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: false,
  });
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
      }),
    close: async () => {
      redis.disconnect();
      await Promise.resolve();
    },
  };
}
