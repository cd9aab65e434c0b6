import type { FastifyReply } from 'fastify';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RecordsConfig } from '../../platform/config/index.js';
import type { RateLimitStore } from '../../platform/rate-limit/limiter.js';
import { RecordsErrors } from '../errors.js';

/** Budgets of the spec: every request, search requests, archive queries. */
export type RateLimitBudget = 'default' | 'search' | 'archiveQuery';

/** Where one request was counted: what is left in the window and when it ends. */
interface Consumed {
  remaining: number;
  msBeforeNext: number;
}

/**
 * In-process fixed windows with RateLimiterMemory's rules (a key's window starts at its first
 * request and lasts `duration` seconds; the request past `points` is refused), counted
 * synchronously: no promise and no timer per request. Expired windows are swept once per window.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { consumed: number; endsAt: number }>();
  private nextSweep: number;

  constructor(
    readonly points: number,
    private readonly durationSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.nextSweep = now() + durationSeconds * 1000;
  }

  /** Counts one request of `key`; `remaining < 0` means refused. */
  consume(key: string): Consumed {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.durationSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.consumed += 1;
    return { remaining: this.points - window.consumed, msBeforeNext: window.endsAt - now };
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.nextSweep = now + this.durationSeconds * 1000;
  }
}

/**
 * Per-actor rate limits (never per address). Every authenticated response carries
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds); a spent budget is 429 RATE_LIMITED.
 * In-process counters answer at once; shared (Redis) counters answer asynchronously.
 */
export class ActorRateLimits {
  private readonly limiters: Record<RateLimitBudget, RateLimiterAbstract | WindowCounter>;

  constructor(store: RateLimitStore, limits: RecordsConfig['rateLimits']) {
    const limiter = (prefix: string, points: number) => {
      const made = store.limiter(prefix, points, 60);
      return made instanceof RateLimiterMemory ? new WindowCounter(made.points, made.duration) : made;
    };
    this.limiters = {
      default: limiter('records-actor', limits.perMinute),
      search: limiter('records-actor-search', limits.search),
      archiveQuery: limiter('records-actor-archive', limits.archiveQuery),
    };
  }

  /**
   * Counts one request of `actor` against `budget`, setting the headers, then calls `done` (with a
   * 429 when the budget is spent) — synchronously when the counters are in process.
   */
  consume(actor: string, budget: RateLimitBudget, reply: FastifyReply, done: (error?: Error) => void): void {
    const limiter = this.limiters[budget];
    if (limiter instanceof WindowCounter) {
      const { remaining, msBeforeNext } = limiter.consume(actor);
      if (remaining < 0) return done(refusal(msBeforeNext));
      return admit(reply, remaining, msBeforeNext, done);
    }
    limiter.consume(actor).then(
      (result) => admit(reply, result.remainingPoints, result.msBeforeNext, done),
      (rejection: unknown) =>
        done(rejection instanceof RateLimiterRes ? refusal(rejection.msBeforeNext) : (rejection as Error)),
    );
  }
}

function admit(reply: FastifyReply, remaining: number, msBeforeNext: number, done: () => void): void {
  void reply.header('x-ratelimit-remaining', String(remaining));
  void reply.header('x-ratelimit-reset', String(Math.ceil((Date.now() + msBeforeNext) / 1000)));
  done();
}

function refusal(msBeforeNext: number): Error {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return RecordsErrors.rateLimited(Math.ceil(Date.now() / 1000) + retryAfter, retryAfter);
}
