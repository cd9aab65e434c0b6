import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitStore } from '../../../platform/rate-limit/limiter.js';
import { retryAfterSeconds } from '../../../platform/rate-limit/limiter.js';
import { WorkflowErrors } from '../../errors.js';

/**
 * Limits password attempts per email and per client address. An attempt is counted before the
 * password is checked, so a parallel burst cannot slip through, and refunded when it succeeds, so
 * only failures add up.
 */
export class LoginLimiter {
  private readonly byEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;

  constructor(store: RateLimitStore, attemptsPerMinute: number) {
    this.byEmail = store.limiter('workflow-login-email', attemptsPerMinute, 60);
    this.byAddress = store.limiter('workflow-login-address', attemptsPerMinute, 60);
  }

  /** Counts an attempt; throws 429 with Retry-After when either budget is spent. */
  async attempt(email: string, address: string): Promise<void> {
    const emailKey = email.toLowerCase();
    const results = await Promise.allSettled([
      this.byEmail.consume(emailKey),
      this.byAddress.consume(address),
    ]);
    const rejected = results.find((result) => result.status === 'rejected');
    if (rejected) {
      const retryAfter = retryAfterSeconds(rejected.reason);
      if (retryAfter === undefined) throw rejected.reason;
      throw WorkflowErrors.tooManyRequests(retryAfter);
    }
  }

  /** Gives back the attempt of a successful login. */
  async succeeded(email: string, address: string): Promise<void> {
    await Promise.allSettled([this.byEmail.reward(email.toLowerCase()), this.byAddress.reward(address)]);
  }
}
