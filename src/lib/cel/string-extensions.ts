import type { Environment } from '../cel-engine/index.js';
import { formatString } from './string-format.js';

/** The `strings` namespace of CEL's strings extension (a constant `strings.quote` hangs on). */
class StringsNamespace {}

const escapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** `strings.quote`: the string as a double-quoted CEL literal, control characters escaped. */
export function quoteString(value: string): string {
  return `"${Array.from(value, (char) => escapes[char] ?? char).join('')}"`;
}

/** `s.charAt(i)`: the code point at `i` ("" at the end; an error past it). */
function charAt(value: string, index: bigint): string {
  const points = Array.from(value);
  if (index < 0n || index > BigInt(points.length)) throw new Error(`index out of range: ${index}`);
  return points[Number(index)] ?? '';
}

/**
 * `s.replace(old, new[, n])`: the first `n` (all when `n` is negative) occurrences of `old`
 * replaced; an empty `old` matches before each code point and at the end, as in Go.
 */
function replace(value: string, from: string, to: string, limit = -1n): string {
  if (from === '') {
    const points = Array.from(value);
    const count = limit < 0n || limit > BigInt(points.length) ? points.length + 1 : Number(limit);
    return (
      points.map((point, index) => (index < count ? to : '') + point).join('') +
      (count > points.length ? to : '')
    );
  }
  if (limit < 0n) return value.split(from).join(to);
  let out = '';
  let rest = value;
  for (let count = 0n; count < limit; count++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

/**
 * Registers the parts of CEL's strings extension (cel-go `ext.Strings`) that cel-js lacks:
 * `charAt`, `format`, `replace`, `reverse` and `strings.quote`.
 */
export function registerStringExtensions(env: Environment): Environment {
  return env
    .registerType('StringsNamespace', StringsNamespace)
    .registerConstant('strings', 'StringsNamespace', new StringsNamespace())
    .registerFunction('StringsNamespace.quote(string): string', (_: unknown, value: string) =>
      quoteString(value),
    )
    .registerFunction('string.charAt(int): string', charAt)
    .registerFunction('string.format(list): string', formatString)
    .registerFunction('string.replace(string, string): string', (v: string, a: string, b: string) =>
      replace(v, a, b),
    )
    .registerFunction('string.replace(string, string, int): string', replace)
    .registerFunction('string.reverse(): string', (value: string) => Array.from(value).reverse().join(''));
}
