import type { DefinitionRecord } from '../engine/store/process-definitions.js';

/**
 * The latest enabled definition of each (org, process key) that started an instance here. An entry
 * may go stale when another instance of the service deploys, disables or renames: a start by key
 * therefore writes only if its definition is still the latest enabled one (checked in the start's
 * own statement), and forgets the entry and reads again when it is not. Bounded; the oldest entry
 * goes first.
 */
export class LatestDefinitionCache {
  private readonly entries = new Map<string, DefinitionRecord>();

  constructor(private readonly capacity = 1000) {}

  /** The cached definition, if any. */
  get(orgId: string, processKey: string): DefinitionRecord | undefined {
    return this.entries.get(cacheKey(orgId, processKey));
  }

  /** Remembers the latest enabled definition of a key. */
  set(definition: DefinitionRecord): void {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(cacheKey(definition.org_id, definition.process_key), definition);
  }

  /** Drops a key's entry (it proved stale). */
  forget(orgId: string, processKey: string): void {
    this.entries.delete(cacheKey(orgId, processKey));
  }
}

function cacheKey(orgId: string, processKey: string): string {
  return `${orgId}\u0000${processKey}`;
}
