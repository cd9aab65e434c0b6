import { TimerSyntaxError } from './invalid-timer-error.js';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an ISO 8601 date-time: `2026-01-01T09:30:00Z`, with an offset (`+01:00`, `+0100`, `+01`),
 * with fractional seconds, or without seconds. Without an offset the time is UTC (weft evaluates
 * timers in UTC only), and a date alone is its midnight UTC. Zone names (`@Europe/Berlin`) are
 * refused rather than guessed.
 */
export function parseIsoDateTime(text: string): Date {
  if (/[@[]/.test(text))
    throw new TimerSyntaxError('time zone names are not supported: give an offset such as +01:00, or Z');
  const match = DATE_TIME.exec(text);
  if (!match) throw new TimerSyntaxError('not an ISO 8601 date-time such as 2026-01-01T09:00:00Z');
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) throw new TimerSyntaxError(`month ${mo} does not exist`);
  if (day < 1 || day > daysInMonth(year, month))
    throw new TimerSyntaxError(`day ${d} does not exist in ${y}-${mo}`);
  if (hour > 23 || minute > 59 || second > 59)
    throw new TimerSyntaxError(`time ${h}:${mi}:${s} does not exist`);
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== 'Z') {
    const digits = offset.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMins = Number(digits.slice(2) || '0');
    if (offsetHours > 18 || offsetMins > 59) throw new TimerSyntaxError(`offset ${offset} does not exist`);
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}
