/**
 * Bounds on FEEL evaluation, so that no expression (a gateway condition, a mapping, a decision) can
 * hold the event loop or exhaust memory: a wall-clock budget for expressions that can loop, and a
 * longest list that iteration over a range or `split` may produce. The service sets them once at
 * start-up from its configuration; until then (unit tests, the script sandbox's workers) the defaults
 * apply.
 */
export interface FeelLimits {
  /** Wall-clock budget of one evaluation that can loop (`for`, quantifiers, functions, filters). */
  readonly timeoutMs: number;
  /** Longest list a range may be iterated into (`for i in 1..n`), or `split` may return. */
  readonly maxListLength: number;
}

/** The limits until the service configures others. */
export const defaultFeelLimits: FeelLimits = Object.freeze({ timeoutMs: 1000, maxListLength: 100_000 });

let current: FeelLimits = defaultFeelLimits;

/** Sets the limits of every FEEL evaluation of this process (the service does it once at start-up). */
export function setFeelLimits(limits: Partial<FeelLimits>): void {
  current = Object.freeze({ ...current, ...limits });
}

/** The limits in force. */
export function feelLimits(): FeelLimits {
  return current;
}
