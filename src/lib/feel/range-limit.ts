import { FeelRange } from 'feelin';
import { feelLimits } from './feel-limits.js';

/** Thrown when FEEL would iterate a range into a list longer than WORKFLOW_FEEL_MAX_LIST_LENGTH. */
export class FeelListTooLongError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeelListTooLongError';
  }
}

let installed = false;

/**
 * Makes feelin refuse to iterate a range of more items than the limit allows (`for i in 1..10000000`
 * would build ten million contexts first) or one that would never end (`for i in 1.5..3` steps past 3;
 * `1..1e300` cannot step at all). feelin enumerates every range through `FeelRange#map`, so that one
 * method is wrapped; the refusal propagates out of `evaluate` as an exception.
 */
export function installRangeLimit(): void {
  if (installed) return;
  installed = true;
  const prototype = FeelRange.prototype;
  // Called below with the range it wraps as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const original = prototype.map;
  prototype.map = function map<T>(this: FeelRange, fn: Parameters<FeelRange['map']>[0]): T[] {
    const start: unknown = this.start;
    const end: unknown = this.end;
    if (typeof start === 'number' && typeof end === 'number') {
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) {
        throw new FeelListTooLongError(`cannot iterate the range ${String(this)}: its ends must be integers`);
      }
      const { maxListLength } = feelLimits();
      if (Math.abs(end - start) + 1 > maxListLength) {
        throw new FeelListTooLongError(
          `the range ${String(this)} has more than ${maxListLength} items (WORKFLOW_FEEL_MAX_LIST_LENGTH)`,
        );
      }
    }
    return original.call(this, fn) as T[];
  };
}
