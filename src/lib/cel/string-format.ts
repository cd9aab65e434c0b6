import {
  celTypeName,
  doubleText,
  durationText,
  isDuration,
  isType,
  isUint,
  mapEntries,
  timestampText,
  type CelValue,
} from './cel-values.js';

/**
 * `string.format(list)` of CEL's strings extension: `%s` (any value as text), `%d` (integer),
 * `%f` and `%e` (double, precision `%.3f`, default 6), `%b`, `%o`, `%x`, `%X` (integer; hex also
 * of a string or bytes) and `%%`. Doubles round half to even, as Go's `strconv` does.
 */
export function formatString(template: string, args: readonly CelValue[]): string {
  let out = '';
  let next = 0;
  for (let at = 0; at < template.length; at++) {
    const char = template[at];
    if (char !== '%') {
      out += char;
      continue;
    }
    if (template[at + 1] === '%') {
      out += '%';
      at++;
      continue;
    }
    const clause = /^\.(\d+)/.exec(template.slice(at + 1));
    const precision = clause ? Number(clause[1]) : undefined;
    at += 1 + (clause ? clause[0].length : 0);
    const verb = template[at];
    if (verb === undefined || !'sdfeboxX'.includes(verb))
      throw new Error(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`);
    if (next >= args.length) throw new Error(`index ${next} out of range`);
    out += formatOne(verb, precision, args[next++]);
  }
  return out;
}

function formatOne(verb: string, precision: number | undefined, value: CelValue): string {
  switch (verb) {
    case 's':
      return asText(value);
    case 'd':
      if (typeof value === 'bigint') return String(value);
      if (isUint(value)) return String(value.value);
      if (typeof value === 'number' && !Number.isFinite(value)) return doubleText(value);
      throw formatError(`decimal clause can only be used on integers, was given ${celTypeName(value)}`);
    case 'f':
      if (typeof value !== 'number')
        throw formatError(`fixed-point clause can only be used on doubles, was given ${celTypeName(value)}`);
      return Number.isFinite(value) ? fixed(value, precision ?? 6) : doubleText(value);
    case 'e':
      if (typeof value !== 'number')
        throw formatError(`scientific clause can only be used on doubles, was given ${celTypeName(value)}`);
      return Number.isFinite(value) ? scientific(value, precision ?? 6) : doubleText(value);
    case 'b':
      if (typeof value === 'boolean') return value ? '1' : '0';
      return integerIn(value, 2, 'only integers and bools can be formatted as binary');
    case 'o':
      return integerIn(value, 8, 'octal clause can only be used on integers');
    default: {
      const hex = hexOf(value);
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
  }
}

function formatError(reason: string): Error {
  return new Error(`error during formatting: ${reason}`);
}

function integerIn(value: CelValue, radix: number, reason: string): string {
  if (typeof value === 'bigint') return value.toString(radix);
  if (isUint(value)) return value.value.toString(radix);
  throw formatError(`${reason}, was given ${celTypeName(value)}`);
}

function hexOf(value: CelValue): string {
  if (typeof value === 'bigint') return value.toString(16);
  if (isUint(value)) return value.value.toString(16);
  const bytes =
    typeof value === 'string'
      ? new TextEncoder().encode(value)
      : value instanceof Uint8Array
        ? value
        : undefined;
  if (!bytes)
    throw formatError(
      `only integers, byte buffers, and strings can be formatted as hex, was given ${celTypeName(value)}`,
    );
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `value` with `digits` decimals, rounded half to even on its exact binary value. */
function fixed(value: number, digits: number): string {
  const negative = value < 0 || Object.is(value, -0);
  const [mantissa, exponent] = exactParts(Math.abs(value));
  let numerator = mantissa * 10n ** BigInt(digits);
  let denominator = 1n;
  if (exponent >= 0) numerator <<= BigInt(exponent);
  else denominator <<= BigInt(-exponent);
  let quotient = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  const text = quotient.toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = digits ? `.${text.slice(text.length - digits)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** The integers m and e with `value = m · 2^e` (value finite and not negative). */
function exactParts(value: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return [fraction, -1074];
  return [fraction | (1n << 52n), biased - 1075];
}

function scientific(value: number, digits: number): string {
  const [mantissa, exponent] = value.toExponential(digits).split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[-+]/, '').padStart(2, '0')}`;
}

/** A value as `%s` writes it: strings bare, lists and maps (keys sorted) with their items as text. */
export function asText(value: CelValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return doubleText(value);
  if (isUint(value)) return String(value.value);
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof Date) return timestampText(value);
  if (isDuration(value)) return durationText(value);
  if (isType(value)) return value.name;
  if (Array.isArray(value)) return `[${value.map(asText).join(', ')}]`;
  if (typeof value === 'object' && celTypeName(value) === 'map') {
    const entries = mapEntries(value).map(([key, item]) => `${asText(key)}: ${asText(item)}`);
    return `{${entries.sort().join(', ')}}`;
  }
  throw formatError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(value)}`,
  );
}
