/**
 * The EL operators (Jakarta EL 1.7–1.10): arithmetic on Long and Double, relational and equality
 * comparisons with their coercions, and `empty`. Logical operators and `?:` short-circuit, so the
 * evaluator applies them itself.
 */
import { JuelDateTime } from './date-time.js';
import { JuelError } from './errors.js';
import {
  describe,
  isDoubleText,
  javaEquals,
  toBoolean,
  toDouble,
  toLong,
  toText,
  wrapLong,
} from './coercion.js';
import type { JuelValue } from './values.js';
import { isList, isMap } from './values.js';

/** The binary arithmetic operators, with `div` and `mod` written as `/` and `%`. */
export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%';

/** The relational operators, with `lt`, `gt`, `le`, `ge` written as symbols. */
export type RelationalOperator = '<' | '>' | '<=' | '>=';

/**
 * A {+,-,*,/,%} B. Two nulls give 0 (Long). `/` always works on Doubles (1 / 0 is Infinity). Otherwise
 * a Double, or a String with '.', 'e' or 'E', makes it Double arithmetic; else Long arithmetic,
 * which wraps at 64 bits like Java's, and where `%` by zero is an error.
 */
export function arithmetic(op: ArithmeticOperator, a: JuelValue, b: JuelValue): JuelValue {
  if (a === null && b === null) return 0n;
  const double =
    op === '/' || typeof a === 'number' || typeof b === 'number' || isDoubleText(a) || isDoubleText(b);
  if (double) {
    const x = toDouble(a);
    const y = toDouble(b);
    switch (op) {
      case '+':
        return x + y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        return x / y;
      case '%':
        return x % y;
    }
  }
  const x = toLong(a);
  const y = toLong(b);
  switch (op) {
    case '+':
      return wrapLong(x + y);
    case '-':
      return wrapLong(x - y);
    case '*':
      return wrapLong(x * y);
    case '%':
      if (y === 0n) throw new JuelError('Division by zero: the remainder of a Long by 0');
      return x % y;
  }
}

/** -A: null is 0; a String is negated as a Double or a Long by its text; a Boolean is an error. */
export function negate(a: JuelValue): JuelValue {
  if (a === null) return 0n;
  if (typeof a === 'bigint') return wrapLong(-a);
  if (typeof a === 'number') return -a;
  if (typeof a === 'string') return isDoubleText(a) ? -toDouble(a) : wrapLong(-toLong(a));
  throw new JuelError(`Cannot negate ${describe(a)}`);
}

/**
 * A {<,>,<=,>=} B: null against anything is false (but null <= null is true); a Double makes both
 * Doubles, a Long both Longs, a String both Strings (compared by UTF-16 code units, as Java does);
 * Booleans, Dates and DateTimes compare among themselves; anything else is an error.
 */
export function compare(op: RelationalOperator, a: JuelValue, b: JuelValue): boolean {
  if (a === null && b === null) return op === '<=' || op === '>=';
  if (a === null || b === null) return false;
  let order: number;
  if (typeof a === 'number' || typeof b === 'number') {
    const x = toDouble(a);
    const y = toDouble(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = toLong(a);
    const y = toLong(b);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === 'string' || typeof b === 'string') {
    const x = toText(a);
    const y = toText(b);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else {
    order = compareComparables(a, b);
  }
  switch (op) {
    case '<':
      return order < 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '>=':
      return order >= 0;
  }
}

function compareComparables(a: JuelValue, b: JuelValue): number {
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof JuelDateTime && b instanceof JuelDateTime) return Math.sign(a.millis - b.millis);
  throw new JuelError(`Cannot compare ${describe(a)} with ${describe(b)}`);
}

/**
 * A {==,!=} B, as `==`: null equals only null; a Double makes both Doubles, a Long both Longs, a
 * Boolean both Booleans, a String both Strings; otherwise Java's equals (structural on Lists and Maps).
 */
export function equals(a: JuelValue, b: JuelValue): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'number' || typeof b === 'number') return toDouble(a) === toDouble(b);
  if (typeof a === 'bigint' || typeof b === 'bigint') return toLong(a) === toLong(b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return toBoolean(a) === toBoolean(b);
  if (typeof a === 'string' || typeof b === 'string') return toText(a) === toText(b);
  return javaEquals(a, b);
}

/** `empty A`: true for null, "", an empty List and an empty Map; false for anything else. */
export function isEmpty(a: JuelValue): boolean {
  if (a === null || a === '') return true;
  if (isList(a)) return a.length === 0;
  if (isMap(a)) return Object.keys(a).length === 0;
  return false;
}
