import {
  date,
  duration,
  evaluate,
  FeelDate,
  FeelDateTime,
  FeelDuration,
  FeelFunction,
  FeelTime,
} from 'feelin';
import { invalidArguments } from './builtin-function.js';

/**
 * FEEL's `*`, `/`, unary `-` with durations and `-` between date-times (DMN 1.5 10.3.2.3), where
 * feelin's operators depart from the specification: a duration times or divided by a number, a
 * duration divided by a duration of the same kind (a number), the negation of a duration (feelin
 * refuses all three), and the difference of two dates, times or date-times as the exact time between
 * them, zones and offsets counted (feelin subtracted the wall-clock values). Numbers behave as in
 * feelin. A days and time duration is scaled in nanoseconds, a years and months duration in whole
 * months (the fraction cut off); a result beyond what a duration can hold is null with a warning, as
 * is any other mix of types.
 */

type TemporalDuration = FeelDuration['value'];
const Duration = (duration('P1D') as FeelDuration).value.constructor as unknown as {
  from(fields: Record<string, number>): TemporalDuration;
};

const NS_PER_SECOND = 1e9;

function totalNanoseconds(d: FeelDuration): number {
  return d.value.total({ unit: 'nanoseconds' });
}

function totalMonths(d: FeelDuration): number {
  return d.value.years * 12 + d.value.months;
}

function daysAndTime(nanoseconds: number): FeelDuration | null {
  if (!Number.isFinite(nanoseconds)) return null;
  const seconds = Math.trunc(nanoseconds / NS_PER_SECOND);
  const rest = Math.round(nanoseconds - seconds * NS_PER_SECOND);
  try {
    return new FeelDuration(Duration.from({ seconds, nanoseconds: rest }), false);
  } catch {
    return null;
  }
}

function yearsAndMonths(months: number): FeelDuration | null {
  if (!Number.isFinite(months)) return null;
  try {
    return new FeelDuration(Duration.from({ months: Math.trunc(months) + 0 }), true);
  } catch {
    return null;
  }
}

function scaled(d: FeelDuration, factor: number): FeelDuration | null {
  return d.yearsMonths ? yearsAndMonths(totalMonths(d) * factor) : daysAndTime(totalNanoseconds(d) * factor);
}

function refused(operation: string, a: unknown, b: unknown): object {
  return invalidArguments(`Can't ${operation} {b} to {a}`, { a, b });
}

function overflow(result: FeelDuration | null, operation: string, a: unknown, b: unknown): unknown {
  return (
    result ?? invalidArguments(`${operation} {a} by {b}: the result is beyond a duration's range`, { a, b })
  );
}

function multiply(a: unknown, b: unknown): unknown {
  if (a === null || b === null || a === undefined || b === undefined) return null;
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof FeelDuration && typeof b === 'number') return overflow(scaled(a, b), 'multiply', a, b);
  if (typeof a === 'number' && b instanceof FeelDuration) return overflow(scaled(b, a), 'multiply', b, a);
  return refused('multiply', a, b);
}

function divide(a: unknown, b: unknown): unknown {
  if (a === null || b === null || a === undefined || b === undefined) return null;
  if (typeof a === 'number' && typeof b === 'number') return b === 0 ? null : a / b;
  if (a instanceof FeelDuration && typeof b === 'number') {
    return b === 0 ? null : overflow(scaled(a, 1 / b), 'divide', a, b);
  }
  if (a instanceof FeelDuration && b instanceof FeelDuration && a.yearsMonths === b.yearsMonths) {
    const divisor = a.yearsMonths ? totalMonths(b) : totalNanoseconds(b);
    if (divisor === 0) return null;
    return (a.yearsMonths ? totalMonths(a) : totalNanoseconds(a)) / divisor;
  }
  return refused('divide', a, b);
}

function negate(a: unknown): unknown {
  if (a === null || a === undefined) return null;
  if (typeof a === 'number') return -a;
  if (a instanceof FeelDuration) return new FeelDuration(a.value.negated(), a.yearsMonths);
  return refused('subtract', 0, a);
}

// feelin's own binary minus, for the operands it gets right (numbers, a temporal minus a duration,
// durations of one kind), compiled once.
const feelinSubtract = (evaluate('function(a, b) a - b', {}).value as FeelFunction).fn as (
  a: unknown,
  b: unknown,
) => unknown;
const EPOCH_DATE = (date('1970-01-01') as FeelDate).value;

// The instant of a date (its midnight), time (on 1970-01-01) or date-time, in nanoseconds since the
// epoch; a value without a zone is taken as UTC, as feelin compares them.
function instant(value: FeelDate | FeelTime | FeelDateTime): bigint {
  if (value instanceof FeelDate) return value.value.toZonedDateTime('UTC').epochNanoseconds;
  const timeZone = value.zone ?? 'UTC';
  if (value instanceof FeelTime) {
    return EPOCH_DATE.toZonedDateTime({ plainTime: value.value, timeZone }).epochNanoseconds;
  }
  return value.value.toZonedDateTime(timeZone).epochNanoseconds;
}

function isTemporal(value: unknown): value is FeelDate | FeelTime | FeelDateTime {
  return value instanceof FeelDate || value instanceof FeelTime || value instanceof FeelDateTime;
}

function subtract(a: unknown, b: unknown): unknown {
  if (a === null || b === null || a === undefined || b === undefined) return null;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (isTemporal(a) && isTemporal(b)) {
    if (a instanceof FeelTime !== b instanceof FeelTime) return refused('subtract', a, b);
    try {
      const between = instant(a) - instant(b);
      const seconds = between / 1_000_000_000n;
      const rest = between - seconds * 1_000_000_000n;
      return new FeelDuration(Duration.from({ seconds: Number(seconds), nanoseconds: Number(rest) }), false);
    } catch {
      return refused('subtract', a, b);
    }
  }
  if (isTemporal(a) && b instanceof FeelDuration) return feelinSubtract(a, b);
  if (a instanceof FeelDuration && b instanceof FeelDuration && a.yearsMonths === b.yearsMonths) {
    return feelinSubtract(a, b);
  }
  return refused('subtract', a, b);
}

/** The functions the arithmetic rewrite calls, by the names it gives them. */
export const ARITHMETIC_NAMES = {
  multiply: '__feel_multiply',
  divide: '__feel_divide',
  negate: '__feel_negate',
  subtract: '__feel_subtract',
};

/** The operator functions, by their names in a rewritten text. */
export const arithmeticFunctions: Readonly<Record<string, FeelFunction>> = {
  [ARITHMETIC_NAMES.multiply]: new FeelFunction(multiply, ['a', 'b']),
  [ARITHMETIC_NAMES.divide]: new FeelFunction(divide, ['a', 'b']),
  [ARITHMETIC_NAMES.negate]: new FeelFunction(negate, ['a']),
  [ARITHMETIC_NAMES.subtract]: new FeelFunction(subtract, ['a', 'b']),
};
