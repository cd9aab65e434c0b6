/** Bounds of an exponential backoff. */
export interface BackoffOptions {
  /** Delay after the first failure. */
  initialMs: number;
  /** The delay never grows beyond this. */
  maxMs: number;
}

/**
 * The delay before attempt `failures + 1`: exponential from `initialMs`, capped at `maxMs`, with
 * "equal jitter" (between half and all of it) so that many workers restarted together spread out
 * while no delay ever shrinks to a busy loop.
 */
export function backoffDelay(failures: number, options: BackoffOptions, random: () => number = Math.random) {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
