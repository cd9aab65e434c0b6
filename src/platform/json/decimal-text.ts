/** A decimal number as written: ±digits × 10^exponent, digits without leading or trailing zeros. */
export interface Decimal {
  negative: boolean;
  /** Significant digits; empty for zero. */
  digits: string;
  exponent: number;
}

const jsonNumber = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/;

/** The decimal a JSON number token writes, or null when `text` is not one. */
export function parseDecimal(text: string): Decimal | null {
  const match = jsonNumber.exec(text);
  if (match === null) return null;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  const significant = digits.replace(/0+$/, '');
  return {
    negative: sign === '-',
    digits: significant,
    exponent: Number(exponent) - fraction.length + (digits.length - significant.length),
  };
}

/**
 * True when `text` (a JSON number) survives `JSON.parse`: the double it becomes prints back as the
 * same decimal. False for digits a double drops (9007199254740993, 0.1234567890123456789) and for
 * numbers beyond its range (1e400 becomes Infinity, 1e-400 becomes 0).
 */
export function roundTrips(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  const written = parseDecimal(text);
  const held = parseDecimal(String(value));
  return (
    written !== null &&
    held !== null &&
    written.negative === held.negative &&
    written.digits === held.digits &&
    written.exponent === held.exponent
  );
}

/** Position of the leading digit: 1 for 1..9.99, 0 for 0.1..0.999, -1 for 0.01..; 0 for zero. */
export function magnitudeOf(decimal: Decimal): number {
  return decimal.digits === '' ? 0 : decimal.digits.length + decimal.exponent;
}

/** Orders two decimals exactly: negative, zero or positive like `a - b`. */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const signA = a.digits === '' ? 0 : a.negative ? -1 : 1;
  const signB = b.digits === '' ? 0 : b.negative ? -1 : 1;
  if (signA !== signB || signA === 0) return signA - signB;
  let magnitude = magnitudeOf(a) - magnitudeOf(b);
  if (magnitude === 0) {
    const width = Math.max(a.digits.length, b.digits.length);
    const digitsA = a.digits.padEnd(width, '0');
    const digitsB = b.digits.padEnd(width, '0');
    magnitude = digitsA < digitsB ? -1 : digitsA > digitsB ? 1 : 0;
  }
  return signA * Math.sign(magnitude);
}

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * The decimal as the text of a 64-bit integer (PostgreSQL `bigint`), or why it is not one.
 */
export function int64Text(decimal: Decimal): { text: string } | { problem: 'fraction' | 'range' } {
  if (decimal.digits === '') return { text: '0' };
  if (decimal.exponent < 0) return { problem: 'fraction' };
  if (magnitudeOf(decimal) > 19) return { problem: 'range' };
  const text = `${decimal.negative ? '-' : ''}${decimal.digits}${'0'.repeat(decimal.exponent)}`;
  const value = BigInt(text);
  return value < int64.min || value > int64.max ? { problem: 'range' } : { text };
}
