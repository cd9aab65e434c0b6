import { LRUCache } from 'lru-cache';
import { isEnded, type StoredInstance } from '../store/process-instances.js';

/** How many instances {@link RecentInstances} keeps by default. */
export const DEFAULT_RECENT_INSTANCES = 5_000;

/**
 * The instances this process wrote last, as committed: state and revision. An engine call may start
 * from one instead of reading the row, because its write is guarded by the revision: if anything
 * else wrote the instance since, the guard fails and the call reads the row after all. Only writes
 * known to be committed are kept; a write inside a caller's transaction (which may still roll
 * back, and whose revision another write could then take) forgets the instance instead.
 */
export class RecentInstances {
  private readonly entries: LRUCache<string, StoredInstance>;

  constructor(maxEntries = DEFAULT_RECENT_INSTANCES) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** The instance as last committed by this process, if it is still held. */
  get(id: string): StoredInstance | undefined {
    return this.entries.get(id);
  }

  /** Keeps a committed write; an ended instance is dropped, as no engine call can move it on. */
  remember(instance: StoredInstance): void {
    if (isEnded(instance.engineState.status)) this.entries.delete(instance.record.id);
    else this.entries.set(instance.record.id, instance);
  }

  /** Drops an instance whose committed state this process does not know. */
  forget(id: string): void {
    this.entries.delete(id);
  }
}
