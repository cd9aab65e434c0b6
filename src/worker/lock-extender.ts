import { isTransientError } from './errors.js';

/** What a {@link LockExtender} calls. */
export interface LockExtenderHooks {
  /** Asks the engine to set the lock to expire `ms` from now. */
  extend(ms: number): Promise<void>;
  /** An extension was accepted. */
  onExtended(ms: number, automatic: boolean): void;
  /** An automatic extension failed; the extender may try again. */
  onError(error: unknown): void;
  /** The lock is gone (refused, or expired before an extension got through): the task is lost. */
  onLost(): void;
}

// Retrying a failed extension sooner than this would only add load.
const MIN_RETRY_MS = 50;

/**
 * Keeps one task's lock alive while its handler runs: extends it by the lock duration each time half
 * of it has passed, retries a failed extension while the lock has time left, and serialises those
 * with the handler's own `extendLock` calls.
 */
export class LockExtender {
  #durationMs: number;
  #expiresAt: number;
  #timer: NodeJS.Timeout | undefined;
  #pending: Promise<unknown> = Promise.resolve();
  #stopped = false;

  constructor(
    durationMs: number,
    private readonly automatic: boolean,
    private readonly hooks: LockExtenderHooks,
  ) {
    this.#durationMs = durationMs;
    this.#expiresAt = Date.now() + durationMs;
    this.#schedule(durationMs / 2);
  }

  /** Extends the lock now, at the handler's request; rejects with the engine's answer. */
  extendNow(ms: number): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('the task is settled or its lock was lost'));
    clearTimeout(this.#timer);
    const attempt = this.#pending.then(async () => {
      try {
        await this.#extend(ms, false);
      } catch (error) {
        if (!isTransientError(error)) this.#lose();
        else this.#schedule(Math.max(MIN_RETRY_MS, (this.#expiresAt - Date.now()) / 2));
        throw error;
      }
    });
    this.#pending = attempt.catch(() => undefined);
    return attempt;
  }

  /** Stops extending; resolves once an extension in flight has settled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pending;
  }

  async #extend(ms: number, automatic: boolean): Promise<void> {
    const startedAt = Date.now();
    await this.hooks.extend(ms);
    this.#durationMs = ms;
    this.#expiresAt = startedAt + ms;
    this.hooks.onExtended(ms, automatic);
    this.#schedule(ms / 2);
  }

  #schedule(delayMs: number): void {
    if (!this.automatic || this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#pending = this.#pending.then(() => this.#tick());
    }, delayMs);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#extend(this.#durationMs, true);
    } catch (error) {
      this.hooks.onError(error);
      const left = this.#expiresAt - Date.now();
      if (isTransientError(error) && left > MIN_RETRY_MS * 2) {
        this.#schedule(Math.max(MIN_RETRY_MS, left / 2));
      } else {
        this.#lose();
      }
    }
  }

  #lose(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.hooks.onLost();
  }
}
