import type { LongPollLimits } from '../../platform/config/index.js';

/**
 * Counts the fetch-and-lock long polls waiting now, per client and in total, and refuses one more
 * beyond either bound. A waiting poll holds no database connection (it sleeps on the task notifier),
 * but each one re-checks for tasks once a second and on every announcement, so an unbounded number
 * of them would still crowd the pool; a bound per client keeps one caller from taking every slot.
 */
export class LongPollSlots {
  private readonly byClient = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: LongPollLimits) {}

  /** Takes a slot for `client`; returns the function that gives it back, or undefined when full. */
  acquire(client: string): (() => void) | undefined {
    const held = this.byClient.get(client) ?? 0;
    if (held >= this.limits.perClient || this.total >= this.limits.total) return undefined;
    this.byClient.set(client, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byClient.get(client) ?? 1) - 1;
      if (left === 0) this.byClient.delete(client);
      else this.byClient.set(client, left);
    };
  }

  /** Long polls waiting now (for metrics and tests). */
  get waiting(): number {
    return this.total;
  }
}
