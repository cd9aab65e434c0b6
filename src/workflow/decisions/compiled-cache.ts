/** Limits of a CompiledCache. */
export interface CompiledCacheLimits {
  /** Most entries kept. */
  maxEntries: number;
  /** Most total weight kept (for compiled DMN: the length of the XML each was compiled from). */
  maxWeight: number;
}

interface Entry<V> {
  value: V;
  weight: number;
}

/**
 * A bounded least-recently-used cache of compiled values, with loads in flight shared: many callers
 * asking for the same missing key cause one load. A failed load is not cached. An entry heavier than
 * `maxWeight` is returned but not kept.
 */
export class CompiledCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();
  private weight = 0;

  constructor(private readonly limits: CompiledCacheLimits) {}

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key`, or the value `load` gives (then cached with its weight). */
  async get(key: string, load: () => Promise<{ value: V; weight: number }>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-inserting moves the key to the end of the Map's order: the most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const inFlight = this.loading.get(key);
    if (inFlight !== undefined) return inFlight;
    const promise = load()
      .then(({ value, weight }) => {
        this.put(key, value, weight);
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  private put(key: string, value: V, weight: number): void {
    if (weight > this.limits.maxWeight) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.weight -= old.weight;
    }
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.weight <= this.limits.maxWeight) break;
      this.entries.delete(oldest);
      this.weight -= entry.weight;
    }
  }
}
