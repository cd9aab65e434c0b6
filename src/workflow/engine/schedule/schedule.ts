import { parseCron } from './cron.js';
import { parseIsoDateTime } from './iso-date-time.js';
import {
  addDuration,
  approximateMillis,
  isZeroDuration,
  parseIsoDuration,
  type IsoDuration,
} from './iso-duration.js';
import { InvalidTimerError, TimerSyntaxError, type TimerSpec } from './invalid-timer-error.js';

export { InvalidTimerError, type TimerKind, type TimerSpec } from './invalid-timer-error.js';

/**
 * When a timer fires. All arithmetic is in UTC.
 *
 * - `first(from)`: the first due time of a timer armed at `from`, or null if it will never fire
 *   (an anchored cycle whose occurrences are all past).
 * - `next(after, firedCount)`: the due time after a firing due at `after`, the timer having fired
 *   `firedCount` times so far (counting that one); null when it is used up. A date or a duration
 *   fires once; a cycle fires `repetitions` times, or forever when that is null.
 */
export interface TimerSchedule {
  readonly spec: TimerSpec;
  /** How many times the timer fires in all; null for an unbounded cycle. */
  readonly repetitions: number | null;
  first(from: Date): Date | null;
  next(after: Date, firedCount: number): Date | null;
}

const MAX_REPETITIONS = 2_147_483_647;

function once(spec: TimerSpec, first: (from: Date) => Date): TimerSchedule {
  return { spec, repetitions: 1, first, next: () => null };
}

/**
 * Occurrences `anchor + k × duration` for `lo ≤ k ≤ hi`: the series of an ISO repeating interval
 * with a start (k from 0) or an end (k up to -1). Each occurrence is computed from the anchor, so a
 * monthly series from 31 January keeps falling on the last day of short months and the 31st of long ones.
 */
function anchoredSeries(
  spec: TimerSpec,
  anchor: Date,
  duration: IsoDuration,
  lo: number,
  hi: number,
  repetitions: number | null,
): TimerSchedule {
  const at = (k: number): Date => addDuration(anchor, duration, k);
  // The first k in [lo, hi] whose occurrence is at or after `from` (or strictly after, when `strict`).
  const firstIndex = (from: Date, strict: boolean): number | null => {
    const reached = (k: number): boolean =>
      strict ? at(k).getTime() > from.getTime() : at(k).getTime() >= from.getTime();
    let k = Math.floor((from.getTime() - anchor.getTime()) / approximateMillis(duration));
    k = Math.min(Math.max(k, lo), hi);
    while (k > lo && reached(k - 1)) k--;
    while (k <= hi && !reached(k)) k++;
    return k <= hi ? k : null;
  };
  return {
    spec,
    repetitions,
    first(from) {
      const k = firstIndex(from, false);
      return k === null ? null : at(k);
    },
    next(after, firedCount) {
      if (repetitions !== null && firedCount >= repetitions) return null;
      const k = firstIndex(after, true);
      return k === null ? null : at(k);
    },
  };
}

function parseCycle(spec: TimerSpec): TimerSchedule {
  const text = spec.value;
  const repeat = /^R(\d*)\//i.exec(text);
  if (!repeat) {
    if (/^R/i.test(text) && !/\s/.test(text))
      throw new TimerSyntaxError('a repeating interval is R[n]/[start/]duration[/end], such as R5/PT10M');
    if (!/\s/.test(text) && !text.startsWith('@'))
      throw new TimerSyntaxError(
        "expected an ISO 8601 repeating interval such as R5/PT10M or a cron expression such as '0 9 * * MON-FRI'",
      );
    const cron = parseCron(text);
    return { spec, repetitions: null, first: (from) => cron.next(from), next: (after) => cron.next(after) };
  }
  let repetitions: number | null = null;
  if (repeat[1] !== '') {
    repetitions = Number(repeat[1]);
    if (repetitions < 1 || repetitions > MAX_REPETITIONS)
      throw new TimerSyntaxError(`the repetition count must be between 1 and ${MAX_REPETITIONS}`);
  }
  const parts = text.slice(repeat[0].length).split('/');
  const positive = (duration: IsoDuration): IsoDuration => {
    if (isZeroDuration(duration))
      throw new TimerSyntaxError('the interval of a cycle must be longer than zero');
    return duration;
  };
  const isDuration = (part: string): boolean => /^P/i.test(part);
  const [a = '', b, ...rest] = parts;
  if (rest.length > 0 || a === '')
    throw new TimerSyntaxError('a repeating interval is R[n]/[start/]duration[/end], such as R5/PT10M');
  if (b === undefined) {
    const duration = positive(parseIsoDuration(a));
    return {
      spec,
      repetitions,
      first: (from) => addDuration(from, duration),
      next: (after, firedCount) =>
        repetitions !== null && firedCount >= repetitions ? null : addDuration(after, duration),
    };
  }
  const last = repetitions === null ? Infinity : repetitions - 1;
  if (isDuration(a) && isDuration(b)) throw new TimerSyntaxError('a repeating interval has one duration');
  if (isDuration(b)) {
    return anchoredSeries(spec, parseIsoDateTime(a), positive(parseIsoDuration(b)), 0, last, repetitions);
  }
  if (isDuration(a)) {
    // R3/PT1H/end: three one-hour intervals that finish at `end`; the timer fires as each begins.
    return anchoredSeries(
      spec,
      parseIsoDateTime(b),
      positive(parseIsoDuration(a)),
      -last - 1,
      -1,
      repetitions,
    );
  }
  const start = parseIsoDateTime(a);
  const end = parseIsoDateTime(b);
  if (end.getTime() <= start.getTime()) throw new TimerSyntaxError('the interval ends before it starts');
  const duration = { months: 0, days: 0, millis: end.getTime() - start.getTime() };
  return anchoredSeries(spec, start, duration, 0, last, repetitions);
}

/**
 * Parses and validates a timer definition. Throws InvalidTimerError with a message fit to show a
 * modeller. Accepted (surrounding white space ignored):
 *
 * - date: an ISO 8601 date-time (`2026-01-01T09:00:00Z`, an offset, or no offset meaning UTC);
 *   due at that instant, at once if it is past.
 * - duration: an ISO 8601 duration (`PT10M`, `P1M`, `P1Y2M10DT2H30M`); due that long after arming.
 * - cycle: `R5/PT10M` (five times, ten minutes apart, the first ten minutes after arming), `R/PT1H`
 *   (forever), `R/2026-01-01T00:00:00Z/P1D` (at each occurrence from the start; the first is the
 *   start itself, or the first one not yet past), `R3/PT1H/2026-01-01T00:00:00Z` (three one-hour
 *   intervals ending at that instant, firing as each begins), `Rn/start/end`, or a cron expression
 *   (see `parseCron`), due at each matching instant after arming.
 */
export function parseTimerSchedule(spec: TimerSpec): TimerSchedule {
  const value = spec.value.trim();
  const trimmed = { kind: spec.kind, value };
  try {
    if (value === '') throw new TimerSyntaxError('the value is empty');
    switch (spec.kind) {
      case 'date': {
        const date = parseIsoDateTime(value);
        return once(trimmed, () => date);
      }
      case 'duration': {
        const duration = parseIsoDuration(value);
        return once(trimmed, (from) => addDuration(from, duration));
      }
      case 'cycle':
        return parseCycle(trimmed);
      default:
        throw new TimerSyntaxError(`unknown timer kind '${String(spec.kind)}'`);
    }
  } catch (error) {
    if (error instanceof TimerSyntaxError) throw new InvalidTimerError(spec.kind, spec.value, error.message);
    throw error;
  }
}

/** The problem with a timer definition, or null when it can be scheduled (for deploy validation). */
export function timerProblem(spec: TimerSpec): string | null {
  try {
    parseTimerSchedule(spec);
    return null;
  } catch (error) {
    if (error instanceof InvalidTimerError) return error.message;
    throw error;
  }
}
