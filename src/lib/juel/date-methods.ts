/** The methods of dates: java.util.Date's few and the Joda DateTime ones Camunda's examples use. */
import { isoText, toInt, toText } from './coercion.js';
import type { DateTimeUnit } from './date-time.js';
import { JuelDateTime } from './date-time.js';
import { JuelError } from './errors.js';
import type { MethodDef, MethodTable } from './method-table.js';
import { arg, method } from './method-table.js';
import type { JuelValue } from './values.js';
import { typeName } from './values.js';

function dateArg(value: JuelValue, name: string): number {
  if (value instanceof Date) return value.getTime();
  if (value instanceof JuelDateTime) return value.millis;
  throw new JuelError(`${name} expects a date, not a ${typeName(value)}`);
}

/** The allowed methods of a Date. */
export const DATE_METHODS: MethodTable<Date> = {
  getTime: method(0, (d) => BigInt(d.getTime())),
  before: method(1, (d, a) => d.getTime() < dateArg(arg(a, 0), 'before')),
  after: method(1, (d, a) => d.getTime() > dateArg(arg(a, 0), 'after')),
  toString: method<Date>(0, (d) => isoText(d)),
  equals: method(1, (d, a) => {
    const other = arg(a, 0);
    return other instanceof Date && other.getTime() === d.getTime();
  }),
};

const MAX_DATE_MILLIS = 8.64e15;

function shifted(unit: DateTimeUnit, sign: 1 | -1): MethodDef<JuelDateTime> {
  return method(1, (d, a) => {
    const result = d.plus(unit, sign * toInt(arg(a, 0)));
    if (!(Math.abs(result.millis) <= MAX_DATE_MILLIS)) throw new JuelError('The date is out of range');
    return result;
  });
}

const UNITS: readonly [string, DateTimeUnit][] = [
  ['Years', 'years'],
  ['Months', 'months'],
  ['Weeks', 'weeks'],
  ['Days', 'days'],
  ['Hours', 'hours'],
  ['Minutes', 'minutes'],
  ['Seconds', 'seconds'],
  ['Millis', 'millis'],
];

function field(read: (d: Date) => number): MethodDef<JuelDateTime> {
  return method(0, (d) => BigInt(read(new Date(d.millis))));
}

/** The allowed methods of a DateTime (`dateTime()`), in UTC. */
export const DATE_TIME_METHODS: MethodTable<JuelDateTime> = {
  ...Object.fromEntries(
    UNITS.flatMap(([suffix, unit]) => [
      [`plus${suffix}`, shifted(unit, 1)],
      [`minus${suffix}`, shifted(unit, -1)],
    ]),
  ),
  toDate: method(0, (d) => new Date(d.millis)),
  getMillis: method(0, (d) => BigInt(d.millis)),
  toString: method<JuelDateTime>(0, (d) => toText(d)),
  isBefore: method(1, (d, a) => d.millis < dateArg(arg(a, 0), 'isBefore')),
  isAfter: method(1, (d, a) => d.millis > dateArg(arg(a, 0), 'isAfter')),
  isEqual: method(1, (d, a) => d.millis === dateArg(arg(a, 0), 'isEqual')),
  withTimeAtStartOfDay: method(
    0,
    (d) => new JuelDateTime(d.millis - (((d.millis % 86_400_000) + 86_400_000) % 86_400_000)),
  ),
  getYear: field((d) => d.getUTCFullYear()),
  getMonthOfYear: field((d) => d.getUTCMonth() + 1),
  getDayOfMonth: field((d) => d.getUTCDate()),
  getDayOfWeek: field((d) => ((d.getUTCDay() + 6) % 7) + 1),
  getHourOfDay: field((d) => d.getUTCHours()),
  getMinuteOfHour: field((d) => d.getUTCMinutes()),
  getSecondOfMinute: field((d) => d.getUTCSeconds()),
  equals: method(1, (d, a) => {
    const other = arg(a, 0);
    return other instanceof JuelDateTime && other.millis === d.millis;
  }),
};
