import type { ChainLink } from './audit-repository.js';

/** The audit verification result of the spec. */
export interface ChainVerification {
  valid: boolean;
  events: number;
  tampering_detected: number;
}

/**
 * Walks a chain in event order: an event is counted as tampered when its stored hash differs from
 * the one recomputed from its content (an edit), or when its `previous_hash` is not the hash of the
 * event before it (a deletion, insertion or reordering).
 */
export function verifyChain(links: ChainLink[]): ChainVerification {
  let previous = '';
  let tampered = 0;
  for (const link of links) {
    if (link.hash !== link.recomputed || link.previous_hash !== previous) tampered += 1;
    previous = link.hash;
  }
  return { valid: tampered === 0, events: links.length, tampering_detected: tampered };
}
