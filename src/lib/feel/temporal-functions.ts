import {
  FeelDate,
  FeelDateTime,
  FeelDuration,
  FeelTime,
  date,
  dateAndTime as parseDateAndTime,
  duration,
  type FeelFunction,
} from 'feelin';
import { feelinBuiltin, invalidArguments, override } from './builtin-function.js';

/**
 * FEEL's temporal constructors where feelin departs from DMN 1.5 (10.3.4.1): dates and date-times with
 * negative (and more than four digit) years, a zone offset beyond ±18:00 or an offset together with a
 * zone id (both invalid, so null), a zero offset written `+00:00`/`-00:00` being UTC (`Z`), the
 * fraction of `time(hour, minute, second)`'s seconds kept, and `years and months duration` counting
 * whole months only.
 */

const time = feelinBuiltin('time');
const dateFn = feelinBuiltin('date');
const dateAndTime = feelinBuiltin('date and time', ['date', 'time', 'from']);

// Temporal's constructors, taken from values feelin builds (feelin depends on temporal-polyfill; we
// use it only through feelin).
const PlainDate = (date('2000-01-01') as FeelDate).value.constructor as unknown as {
  from(text: string): FeelDate['value'];
};
const PlainDateTime = (dateAndTime('2000-01-01T00:00:00') as FeelDateTime).value.constructor as unknown as {
  from(text: string): FeelDateTime['value'];
};
const Duration = (duration('P1Y') as FeelDuration).value.constructor as unknown as {
  from(fields: Record<string, number>): FeelDuration['value'];
};

const MAX_OFFSET_MINUTES = 18 * 60;
const OFFSET = /([+-])(\d{2}):(\d{2})(?::\d{2})?$/;
const OFFSET_AND_ZONE = /[+-]\d{2}:\d{2}(?::\d{2})?@|Z@/;
// An ISO date with a sign or more than four year digits, which feelin's parser does not read.
const EXTENDED_YEAR = /^([+-]?)(\d{4,9})(-\d{2}-\d{2})(.*)$/;

/** Whether a textual time or date-time names an offset FEEL rejects, or both an offset and a zone. */
function badZone(text: string): boolean {
  if (OFFSET_AND_ZONE.test(text)) return true;
  const offset = OFFSET.exec(text.includes('T') ? text.slice(text.indexOf('T')) : text);
  if (offset === null) return false;
  return Number(offset[2]) * 60 + Number(offset[3]) > MAX_OFFSET_MINUTES;
}

/** `+00:00` and `-00:00` are UTC: the same zone as `Z`, shown as `Z`. */
function utcIfZeroOffset<T>(value: T): T {
  if (value instanceof FeelTime && (value.zone === '+00:00' || value.zone === '-00:00')) {
    return new FeelTime(value.value, 'UTC') as T;
  }
  if (value instanceof FeelDateTime && (value.zone === '+00:00' || value.zone === '-00:00')) {
    return new FeelDateTime(value.value, 'UTC') as T;
  }
  return value;
}

// The date part with its year as Temporal reads it (six digits and a sign when not 0000–9999).
function extendedDate(sign: string, year: string, rest: string): string {
  const digits = year.replace(/^0+(?=\d{4})/, '');
  if (sign === '' && digits.length === 4) return `${digits}${rest}`;
  return `${sign === '-' ? '-' : '+'}${digits.padStart(6, '0')}${rest}`;
}

const ZONE_SUFFIX = /(Z|[+-]\d{2}:\d{2}|@[^@]+)$/;

function parseExtendedDateTime(text: string): FeelDateTime | FeelDate | null {
  const m = EXTENDED_YEAR.exec(text);
  if (m === null) return null;
  const [, sign = '', year = '', rest = '', tail = ''] = m;
  if (year.length > 4 && year.startsWith('0')) return null;
  const datePart = extendedDate(sign, year, rest);
  try {
    if (tail === '') return new FeelDate(PlainDate.from(datePart));
    if (!tail.startsWith('T')) return null;
    const zone = ZONE_SUFFIX.exec(tail);
    const local = zone === null ? tail : tail.slice(0, zone.index);
    const zoneName = zone === null ? null : zone[1] === 'Z' ? 'UTC' : (zone[1] ?? '').replace(/^@/, '');
    return new FeelDateTime(PlainDateTime.from(`${datePart}${local}`), zoneName);
  } catch {
    return null;
  }
}

function needsOwnParser(text: string): boolean {
  return /^[+-]/.test(text) || /^\d{5,}-/.test(text);
}

const timeOverride = override(time, (...args) => {
  const [first] = args;
  if (typeof first === 'string' && badZone(first)) return null;
  const offset = args[3];
  if (
    offset instanceof FeelDuration &&
    Math.abs(offset.value.total({ unit: 'minutes' })) > MAX_OFFSET_MINUTES
  ) {
    return null;
  }
  const second = args[2];
  if (typeof args[0] === 'number' && typeof second === 'number' && !Number.isInteger(second)) {
    // feelin drops the fraction of `second`; FEEL keeps it (time(12, 59, 1.3) is 12:59:01.3).
    const whole = Math.floor(second);
    const made = time(args[0], args[1], whole, ...args.slice(3));
    if (!(made instanceof FeelTime)) return made;
    const nanos = Math.round((second - whole) * 1e9);
    const fraction = {
      millisecond: Math.floor(nanos / 1e6),
      microsecond: Math.floor(nanos / 1e3) % 1000,
      nanosecond: nanos % 1000,
    };
    return utcIfZeroOffset(new FeelTime(made.value.with(fraction), made.zone));
  }
  return utcIfZeroOffset(time(...args));
});

const dateOverride = override(dateFn, (...args) => {
  const [first] = args;
  if (typeof first === 'string' && needsOwnParser(first)) {
    const parsed = parseExtendedDateTime(first);
    return parsed instanceof FeelDate ? parsed : null;
  }
  return dateFn(...args);
});

const dateAndTimeOverride = override(dateAndTime, (...args) => {
  const [first, , from] = args;
  const text = typeof first === 'string' ? first : typeof from === 'string' ? from : null;
  if (text !== null) {
    if (badZone(text)) return null;
    if (needsOwnParser(text)) {
      const parsed = parseExtendedDateTime(text);
      if (parsed instanceof FeelDate) return new FeelDateTime(parsed.value.toPlainDateTime(), null);
      return utcIfZeroOffset(parsed);
    }
    // What feelin's builtin does with a string, without its evaluate-per-call fallback.
    const parsed = parseDateAndTime(text);
    if (parsed === null)
      return invalidArguments('date and time({from}) is not a valid date time', { from: text });
    return utcIfZeroOffset(parsed);
  }
  return utcIfZeroOffset(dateAndTime(...args));
});

/**
 * years and months duration(from, to): the whole years and months from one date (or the date of a
 * date and time) to another, days left out, negative when `to` is earlier (DMN 1.5 10.3.4.1).
 */
function yearsAndMonthsDuration(from: unknown, to: unknown): FeelDuration | null {
  const start = calendarDate(from);
  const end = calendarDate(to);
  if (start === null || end === null) return null;
  const between = start.until(end, { largestUnit: 'years' });
  return new FeelDuration(Duration.from({ years: between.years, months: between.months }), true);
}

function calendarDate(value: unknown): FeelDate['value'] | null {
  if (value instanceof FeelDate) return value.value;
  if (value instanceof FeelDateTime) return value.value.toPlainDate();
  return null;
}

/** The temporal overrides, by their FEEL names. */
export const temporalFunctions: Readonly<Record<string, FeelFunction>> = {
  time: timeOverride,
  date: dateOverride,
  'date and time': dateAndTimeOverride,
  'years and months duration': override(
    Object.assign(() => null, { $args: ['from', 'to'] }),
    yearsAndMonthsDuration,
  ),
};
