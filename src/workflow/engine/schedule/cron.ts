import { TimerSyntaxError } from './invalid-timer-error.js';

/** A parsed cron expression, evaluated in UTC. */
export interface CronExpression {
  /** The first matching instant strictly after `after`, or null when none comes within 30 years. */
  next(after: Date): Date | null;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: FieldSpec = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { name: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldSpec = {
  name: 'month',
  min: 1,
  max: 12,
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
};
// 7 is Sunday too, as in Vixie cron; it is folded onto 0 after parsing.
const DAY_OF_WEEK: FieldSpec = {
  name: 'day-of-week',
  min: 0,
  max: 7,
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const SEARCH_YEARS = 30;

interface Field {
  allowed: boolean[];
  /** The field starts with `*` (or `?`): Vixie cron's day rule treats it as unrestricted. */
  star: boolean;
}

function value(text: string, spec: FieldSpec): number {
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return spec.names === MONTH.names ? index + 1 : index;
  if (!/^\d+$/.test(text))
    throw new TimerSyntaxError(`${spec.name} field: '${text}' is not a number or a name`);
  const number = Number(text);
  if (number < spec.min || number > spec.max)
    throw new TimerSyntaxError(`${spec.name} field: ${number} is outside ${spec.min}-${spec.max}`);
  return number;
}

function parseField(text: string, spec: FieldSpec): Field {
  const allowed = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of text.split(',')) {
    const match = /^([^/]+)(?:\/(.+))?$/.exec(item);
    const range = match?.[1];
    if (range === undefined) throw new TimerSyntaxError(`${spec.name} field: empty item in '${text}'`);
    if (/#|^\d*L?W?$/i.test(range) && /[LW#]/i.test(range))
      throw new TimerSyntaxError(`${spec.name} field: L, W and # are not supported`);
    let step = 1;
    if (match?.[2] !== undefined) {
      if (!/^\d+$/.test(match[2]) || Number(match[2]) < 1)
        throw new TimerSyntaxError(`${spec.name} field: step '${match[2]}' must be a positive whole number`);
      step = Number(match[2]);
    }
    let from: number;
    let to: number;
    if (range === '*' || range === '?') {
      from = spec.min;
      to = spec === DAY_OF_WEEK ? 6 : spec.max;
    } else if (range.includes('-')) {
      const [a = '', b = '', ...rest] = range.split('-');
      if (rest.length > 0) throw new TimerSyntaxError(`${spec.name} field: '${range}' is not a range`);
      from = value(a, spec);
      to = value(b, spec);
      if (from > to)
        throw new TimerSyntaxError(
          `${spec.name} field: range ${range} runs backwards (write it as two ranges)`,
        );
    } else {
      from = value(range, spec);
      // `5/15` means "from 5, every 15", as in most crons.
      to = match?.[2] !== undefined ? (spec === DAY_OF_WEEK ? 6 : spec.max) : from;
    }
    for (let v = from; v <= to; v += step) allowed[v] = true;
  }
  if (spec === DAY_OF_WEEK && allowed[7]) allowed[0] = true;
  return { allowed, star: text.startsWith('*') || text.startsWith('?') };
}

/**
 * Parses a cron expression: five fields (minute hour day-of-month month day-of-week) or six with a
 * leading second field (as Zeebe's Spring cron writes them), or a macro such as `@daily`. Fields
 * take `*`, numbers, names (JAN-DEC, SUN-SAT, any case), lists `1,15`, ranges `MON-FRI` and steps
 * `*\/10`, `8-18/2`, `5/15`; `?` means `*`. Day of week 0 and 7 are Sunday. When both day fields are
 * restricted a day matches either (Vixie cron's rule: `0 0 1 * MON` is the 1st and every Monday);
 * a field that starts with `*` counts as unrestricted, so `*\/2` in one of them does not trigger it.
 */
export function parseCron(text: string): CronExpression {
  const expanded = MACROS[text.trim().toLowerCase()] ?? text.trim();
  if (expanded.startsWith('@')) throw new TimerSyntaxError(`unknown cron macro '${expanded}'`);
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6)
    throw new TimerSyntaxError(
      `a cron expression has five fields (minute hour day-of-month month day-of-week), not ${parts.length}`,
    );
  const fields = parts.length === 6 ? parts : ['0', ...parts];
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = (
    [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK] as const
  ).map((spec, i) => parseField(fields[i] ?? '', spec)) as [Field, Field, Field, Field, Field, Field];

  const dayMatches = (date: Date): boolean => {
    const dom = dayOfMonth.allowed[date.getUTCDate()] === true;
    const dow = dayOfWeek.allowed[date.getUTCDay()] === true;
    return dayOfMonth.star || dayOfWeek.star ? dom && dow : dom || dow;
  };

  const expression: CronExpression = {
    next(after) {
      const t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
      const limit = after.getTime() + SEARCH_YEARS * 366 * 86_400_000;
      while (t.getTime() <= limit) {
        if (!month.allowed[t.getUTCMonth() + 1]) {
          t.setUTCMonth(t.getUTCMonth() + 1, 1);
          t.setUTCHours(0, 0, 0, 0);
        } else if (!dayMatches(t)) {
          t.setUTCDate(t.getUTCDate() + 1);
          t.setUTCHours(0, 0, 0, 0);
        } else if (!hour.allowed[t.getUTCHours()]) {
          t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
        } else if (!minute.allowed[t.getUTCMinutes()]) {
          t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
        } else if (!second.allowed[t.getUTCSeconds()]) {
          t.setUTCSeconds(t.getUTCSeconds() + 1, 0);
        } else {
          return t;
        }
      }
      return null;
    },
  };
  // Every month/day combination recurs within 28 years, so one that finds nothing never matches.
  if (expression.next(new Date(Date.UTC(2001, 0, 1))) === null)
    throw new TimerSyntaxError('the day-of-month and month fields never match a date (such as 30 February)');
  return expression;
}
