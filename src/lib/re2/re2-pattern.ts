import { RE2JS } from 're2js';

/**
 * User-supplied regular expressions (records schema `pattern`, FEEL `matches`/`replace`/`split`) run
 * on RE2 (re2js, pure JavaScript): matching takes time linear in the input, whatever the pattern, so
 * no pattern can backtrack catastrophically (`^(a+)+$`). RE2 has no backreferences and no
 * lookaround; a pattern that uses them does not compile.
 */

/** Options of a compiled pattern (the XPath/FEEL flags s, m, i; x is applied to the text). */
export interface Re2Options {
  /** `.` matches a newline too (flag s). */
  dotAll?: boolean;
  /** `^` and `$` match at line breaks (flag m). */
  multiline?: boolean;
  /** Case-insensitive (flag i). */
  caseInsensitive?: boolean;
}

/** A pattern RE2 cannot compile, with RE2's reason. */
export class Re2PatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`'${pattern}' is not a valid RE2 regular expression: ${reason}`);
    this.name = 'Re2PatternError';
  }
}

const MAX_CACHED = 1000;
const cache = new Map<string, RE2JS>();

/**
 * Compiles a pattern with RE2 (compiled patterns are cached). JavaScript's `\uXXXX` and `\u{X…}`
 * escapes are accepted as RE2's `\x{…}`. Throws Re2PatternError when RE2 cannot compile it.
 */
export function compileRe2(pattern: string, options: Re2Options = {}): RE2JS {
  const flags =
    (options.dotAll === true ? RE2JS.DOTALL : 0) |
    (options.multiline === true ? RE2JS.MULTILINE : 0) |
    (options.caseInsensitive === true ? RE2JS.CASE_INSENSITIVE : 0);
  const key = `${flags}:${pattern}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(withRe2Escapes(pattern), flags);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Re2PatternError(pattern, message.replace(/^error parsing regexp: /, ''));
  }
  // Oldest first out: a Map iterates in insertion order.
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** Why RE2 cannot compile the pattern, or null when it can. */
export function re2PatternProblem(pattern: string): string | null {
  try {
    compileRe2(pattern);
    return null;
  } catch (error) {
    if (error instanceof Re2PatternError) return error.reason;
    throw error;
  }
}

// `\uXXXX` (surrogate pairs joined) and `\u{X…}` become `\x{…}`; every other escape is copied.
function withRe2Escapes(pattern: string): string {
  if (!pattern.includes('\\u')) return pattern;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = pattern[i + 1] ?? '';
    if (next !== 'u') {
      out += ch + next;
      i++;
      continue;
    }
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(i + 2, i + 11));
    if (braced?.[1] !== undefined) {
      out += `\\x{${braced[1]}}`;
      i += 1 + braced[0].length;
      continue;
    }
    const unit = hexUnit(pattern, i + 2);
    if (unit === null) {
      out += '\\u';
      i++;
      continue;
    }
    const low = pattern.startsWith('\\u', i + 6) ? hexUnit(pattern, i + 8) : null;
    if (unit >= 0xd800 && unit <= 0xdbff && low !== null && low >= 0xdc00 && low <= 0xdfff) {
      out += `\\x{${(((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000).toString(16)}}`;
      i += 11;
    } else {
      out += `\\x{${unit.toString(16)}}`;
      i += 5;
    }
  }
  return out;
}

function hexUnit(text: string, at: number): number | null {
  const digits = text.slice(at, at + 4);
  return /^[0-9A-Fa-f]{4}$/.test(digits) ? parseInt(digits, 16) : null;
}
