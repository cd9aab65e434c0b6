/** What a BufferedWriter writes, and when. */
export interface BufferedWriterOptions<T> {
  /** Writes one batch (one statement). Throwing hands the batch to `failed`. */
  write(batch: T[]): Promise<void>;
  /**
   * Entries with the same key replace each other (the latest wins, in the place of the first), so a
   * burst of entries for one thing costs one row. Every entry is kept when not given.
   */
  key?(entry: T): string;
  /** The longest an entry waits before the write that takes it starts. */
  flushAfterMs: number;
  /** As many entries as this are written at once, without waiting for the timer. */
  flushAtSize?: number;
  /**
   * A batch the database refused: `retry` puts it back in front of what came meanwhile, to be written
   * again `retryAfterMs` later; `drop` forgets it.
   */
  failed(error: unknown, batchSize: number): 'retry' | 'drop';
  /** The retry delay (`flushAfterMs` when not given). */
  retryAfterMs?: number;
  /** Entries kept at most; beyond it the oldest are dropped and `dropped` is told how many. */
  maxBuffered?: number;
  dropped?(count: number): void;
}

/**
 * Entries queued on the request path (synchronously, never waiting on the database) and written in
 * batches in the background: at the latest `flushAfterMs` after the first one queued, at once when
 * `flushAtSize` are queued, and on `flush()`. Writes never overlap: each flush waits for the one
 * before. Used by the auth audit log and the API keys' last-use times.
 */
export class BufferedWriter<T> {
  private buffer = new Map<string | number, T>();
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  // A flush queued behind the one in progress takes everything added meanwhile: one is enough.
  private flushQueued = false;

  constructor(private readonly options: BufferedWriterOptions<T>) {}

  /** Entries waiting to be written. */
  get size(): number {
    return this.buffer.size;
  }

  /** Queues an entry (synchronous). */
  add(entry: T): void {
    this.buffer.set(this.options.key?.(entry) ?? this.sequence++, entry);
    const { maxBuffered, flushAtSize } = this.options;
    if (maxBuffered !== undefined && this.buffer.size > maxBuffered) {
      const dropped = this.buffer.size - maxBuffered;
      const keys = this.buffer.keys();
      for (let i = 0; i < dropped; i++) this.buffer.delete(keys.next().value as string | number);
      this.options.dropped?.(dropped);
    }
    if (flushAtSize !== undefined && this.buffer.size >= flushAtSize) {
      if (!this.flushQueued) void this.flush();
    } else this.arm(this.options.flushAfterMs);
  }

  /** Writes everything queued so far; resolves when it is stored (or has failed and been handled). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushQueued = true;
    this.flushing = this.flushing.then(() => {
      this.flushQueued = false;
      return this.write();
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is queued. */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.flush(), delayMs);
    // A background write must not keep a process alive; close() writes what is left.
    this.timer.unref();
  }

  private async write(): Promise<void> {
    const batch = this.buffer;
    if (batch.size === 0) return;
    this.buffer = new Map();
    try {
      await this.options.write([...batch.values()]);
    } catch (error) {
      if (this.options.failed(error, batch.size) === 'drop') return;
      const kept = new Map(batch);
      for (const [key, entry] of this.buffer) kept.set(key, entry);
      this.buffer = kept;
      this.arm(this.options.retryAfterMs ?? this.options.flushAfterMs);
    }
  }
}
