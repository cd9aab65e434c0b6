import { FeelDate, FeelRange } from 'feelin';
import { feelLimits } from './feel-limits.js';

/** Thrown when FEEL would iterate a range into a list longer than WORKFLOW_FEEL_MAX_LIST_LENGTH. */
export class FeelListTooLongError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeelListTooLongError';
  }
}

/** Thrown when FEEL is asked to iterate a range that is not of integers or dates. */
export class FeelRangeIterationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeelRangeIterationError';
  }
}

let installed = false;

// The dates of a range, one a day in the range's direction (DMN 1.5 10.3.2.14: an iteration context
// `a..b` may range over dates).
function dateRangeValues(range: FeelRange, start: FeelDate, end: FeelDate): FeelDate[] {
  const days = start.value.until(end.value, { largestUnit: 'days' }).days;
  const count = Math.abs(days) + 1;
  const { maxListLength } = feelLimits();
  if (count > maxListLength) {
    throw new FeelListTooLongError(
      `the range ${String(range)} has more than ${maxListLength} items (WORKFLOW_FEEL_MAX_LIST_LENGTH)`,
    );
  }
  const step = days >= 0 ? 1 : -1;
  const out: FeelDate[] = [];
  for (let i = 0; i < count; i++) {
    if (i === 0 && !range['start included']) continue;
    if (i === count - 1 && !range['end included']) break;
    out.push(new FeelDate(start.value.add({ days: i * step })));
  }
  return out;
}

/**
 * Makes feelin iterate ranges as DMN 1.5 says and no further than the limits allow. feelin enumerates
 * every range through `FeelRange#map` (iteration contexts of `for`, `some`, `every`), so that one
 * method is wrapped: a range of dates is iterated day by day (feelin could not), a range of strings
 * is refused (iteration is over integers or dates only; feelin stepped through characters), and a
 * range of numbers of more items than the limit (`for i in 1..10000000` would build ten million
 * contexts first) or one that would never end (`1.5..3` steps past 3; `1..1e300` cannot step at all)
 * is refused. A refusal propagates out of `evaluate` as an exception.
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
    if (start instanceof FeelDate && end instanceof FeelDate) {
      return dateRangeValues(this, start, end).map(fn) as T[];
    }
    if (typeof start === 'string' || typeof end === 'string') {
      throw new FeelRangeIterationError(
        `cannot iterate the range ${String(this)}: it is not of integers or dates`,
      );
    }
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
