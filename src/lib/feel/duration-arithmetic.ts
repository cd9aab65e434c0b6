import { duration, FeelDuration, FeelFunction } from 'feelin';
import { invalidArguments } from './builtin-function.js';

/**
 * FEEL's `*`, `/` and unary `-` with durations (DMN 1.5 10.3.2.3.x, Table 57–59), which feelin's
 * operators refuse: a duration times or divided by a number, a duration divided by a duration of the
 * same kind (a number), and the negation of a duration. Numbers behave as in feelin. A days and time
 * duration is scaled in nanoseconds, a years and months duration in whole months (the fraction cut
 * off); a result beyond what a duration can hold is null with a warning, as is any other mix of types.
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

/** The functions the arithmetic rewrite calls, by the names it gives them. */
export const ARITHMETIC_NAMES = {
  multiply: '__feel_multiply',
  divide: '__feel_divide',
  negate: '__feel_negate',
};

/** The operator functions, by their names in a rewritten text. */
export const arithmeticFunctions: Readonly<Record<string, FeelFunction>> = {
  [ARITHMETIC_NAMES.multiply]: new FeelFunction(multiply, ['a', 'b']),
  [ARITHMETIC_NAMES.divide]: new FeelFunction(divide, ['a', 'b']),
  [ARITHMETIC_NAMES.negate]: new FeelFunction(negate, ['a']),
};
