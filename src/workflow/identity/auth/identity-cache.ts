import type { Clock } from '../../../platform/clock.js';

/** Options of IdentityCache. */
export interface IdentityCacheOptions {
  /** How long an entry may be served at most; 0 turns the cache off (every request reads). */
  ttlMs: number;
  /** Entries kept at most; the oldest is evicted first. */
  maxEntries?: number;
  clock: Clock;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * What authentication read from the database (a user with their memberships, an API key's row),
 * kept per process so a request does not pay a round trip for it. Correctness rests on
 * invalidation, not on the TTL: every committed change to what authentication reads sends a
 * NOTIFY (migration 0021) and `invalidate` drops everything; the service's own identity writes
 * invalidate at once as well. While the notification channel is down (`distrust`) nothing is
 * served from memory, since a change could be missed; the TTL only bounds an entry's age should a
 * notification go astray undetected (the channel's heartbeat notices a dead connection within
 * seconds).
 */
export class IdentityCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private trusted = false;
  // Bumped by every invalidation: a read that started before one must not store what it read.
  private generation = 0;

  constructor(private readonly options: IdentityCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** The cached value of `key`, or what `load` reads (stored unless null or invalidated meanwhile). */
  async read<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    if (!this.serving()) return load();
    const now = this.options.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) return entry.value as T;
    const generation = this.generation;
    const value = await load();
    if (value !== null && generation === this.generation && this.trusted) this.store(key, value, now);
    return value;
  }

  /** Drops every entry: something authentication reads has changed. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** The notification channel listens: entries may be served. */
  trust(): void {
    this.invalidate();
    this.trusted = true;
  }

  /** The notification channel is down: changes could be missed, so every read goes to the database. */
  distrust(): void {
    this.trusted = false;
    this.invalidate();
  }

  private serving(): boolean {
    return this.trusted && this.options.ttlMs > 0;
  }

  private store(key: string, value: unknown, now: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
  }
}
