/**
 * The value of `dateTime()`: an instant with the Joda-Time methods Camunda 7's examples call
 * (`plusWeeks(1).toDate()`), computed in UTC. Immutable; every `plus…`/`minus…` returns a new one.
 */
export class JuelDateTime {
  constructor(readonly millis: number) {}

  /** Adds whole calendar units; months and years keep the day of month, clamped to the month's end. */
  plus(unit: DateTimeUnit, amount: number): JuelDateTime {
    if (unit === 'months' || unit === 'years') {
      const d = new Date(this.millis);
      const months = d.getUTCMonth() + (unit === 'years' ? amount * 12 : amount);
      const year = d.getUTCFullYear() + Math.floor(months / 12);
      const month = ((months % 12) + 12) % 12;
      const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
      const shifted = new Date(this.millis);
      shifted.setUTCFullYear(year, month, Math.min(d.getUTCDate(), lastDay));
      return new JuelDateTime(shifted.getTime());
    }
    return new JuelDateTime(this.millis + amount * UNIT_MILLIS[unit]);
  }

  /** The ISO-8601 text, as Joda prints a UTC date-time: `2025-01-08T10:00:00.000Z`. */
  toString(): string {
    return new Date(this.millis).toISOString();
  }
}

/** The units of `plus…`/`minus…`. */
export type DateTimeUnit = 'years' | 'months' | 'weeks' | 'days' | 'hours' | 'minutes' | 'seconds' | 'millis';

const UNIT_MILLIS: Record<Exclude<DateTimeUnit, 'months' | 'years'>, number> = {
  weeks: 7 * 86_400_000,
  days: 86_400_000,
  hours: 3_600_000,
  minutes: 60_000,
  seconds: 1_000,
  millis: 1,
};
