import type { FastifyReply } from 'fastify';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RecordsConfig } from '../../platform/config/index.js';
import type { RateLimitStore } from '../../platform/rate-limit/limiter.js';
import { RecordsErrors } from '../errors.js';

/** Budgets of the spec: every request, search requests, archive queries. */
export type RateLimitBudget = 'default' | 'search' | 'archiveQuery';

/**
 * Per-actor rate limits (never per address). Every authenticated response carries
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds); a spent budget is 429 RATE_LIMITED.
 */
export class ActorRateLimits {
  private readonly limiters: Record<RateLimitBudget, RateLimiterAbstract>;

  constructor(store: RateLimitStore, limits: RecordsConfig['rateLimits']) {
    this.limiters = {
      default: store.limiter('records-actor', limits.perMinute, 60),
      search: store.limiter('records-actor-search', limits.search, 60),
      archiveQuery: store.limiter('records-actor-archive', limits.archiveQuery, 60),
    };
  }

  /** Counts one request of `actor` against `budget`, setting the headers; throws 429 when spent. */
  async consume(actor: string, budget: RateLimitBudget, reply: FastifyReply): Promise<void> {
    try {
      const result = await this.limiters[budget].consume(actor);
      void reply.header('x-ratelimit-remaining', String(result.remainingPoints));
      void reply.header('x-ratelimit-reset', String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw RecordsErrors.rateLimited(Math.ceil(Date.now() / 1000) + retryAfter, retryAfter);
    }
  }
}
