/** The source of "now". Injected everywhere time matters, so tests move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };
