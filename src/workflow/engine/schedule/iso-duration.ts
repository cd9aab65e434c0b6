import { TimerSyntaxError } from './invalid-timer-error.js';

/**
 * An ISO 8601 duration split into the parts that add differently: calendar months (years count
 * twelve), days, and exact milliseconds (hours, minutes, seconds). Weeks count seven days.
 */
export interface IsoDuration {
  months: number;
  days: number;
  millis: number;
}

const DURATION =
  /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/i;

// Beyond these a timer is a mistake, and Date arithmetic would leave its range (±275,000 years).
const MAX_YEARS = 10_000;
const MAX_MILLIS = MAX_YEARS * 366 * 86_400_000;

function number(text: string | undefined): number {
  return text === undefined ? 0 : Number(text.replace(',', '.'));
}

/**
 * Parses `PnYnMnWnDTnHnMnS` (any part may be left out, at least one given). Fractions are accepted
 * on hours, minutes and seconds only: a fraction of a month or a day has no single length.
 */
export function parseIsoDuration(text: string): IsoDuration {
  const match = DURATION.exec(text);
  if (!match || /^P$|T$/i.test(text)) {
    throw new TimerSyntaxError(
      text.startsWith('-')
        ? 'a negative duration cannot schedule a timer'
        : 'not an ISO 8601 duration such as PT10M, P1D or P1Y2M3DT4H5M6S',
    );
  }
  const [, years, months, weeks, days, hours, minutes, seconds] = match;
  for (const [part, unit] of [
    [years, 'years'],
    [months, 'months'],
    [weeks, 'weeks'],
    [days, 'days'],
  ] as const) {
    if (part !== undefined && /[.,]/.test(part))
      throw new TimerSyntaxError(`a fraction of ${unit} has no fixed length: write a smaller unit instead`);
  }
  const duration = {
    months: number(years) * 12 + number(months),
    days: number(weeks) * 7 + number(days),
    millis: Math.round((number(hours) * 3600 + number(minutes) * 60 + number(seconds)) * 1000),
  };
  if (duration.months > MAX_YEARS * 12 || duration.days > MAX_YEARS * 366 || duration.millis > MAX_MILLIS)
    throw new TimerSyntaxError(`a duration longer than ${MAX_YEARS} years`);
  return duration;
}

/** True when the duration adds nothing. */
export function isZeroDuration(duration: IsoDuration): boolean {
  return duration.months === 0 && duration.days === 0 && duration.millis === 0;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `date` plus `times` × `duration`, in UTC and calendar-correct: months first (a day past the end of
 * the target month becomes its last day, so 31 January + P1M is 28 or 29 February), then days,
 * then exact time. Multiplying before adding (rather than adding `times` times) keeps a series
 * anchored: 31 January + 2 × P1M is 31 March, not 28 March.
 */
export function addDuration(date: Date, duration: IsoDuration, times = 1): Date {
  let result = date;
  const months = duration.months * times;
  if (months !== 0) {
    const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    result = new Date(date.getTime());
    result.setUTCDate(1);
    result.setUTCFullYear(year, month, Math.min(date.getUTCDate(), daysInMonth(year, month)));
  }
  return new Date(result.getTime() + (duration.days * 86_400_000 + duration.millis) * times);
}

/** A rough length in milliseconds (a month as 30.436875 days), for estimates only. */
export function approximateMillis(duration: IsoDuration): number {
  return duration.months * 30.436875 * 86_400_000 + duration.days * 86_400_000 + duration.millis;
}
