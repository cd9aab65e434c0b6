import { FeelFunction } from 'feelin';
import { compileRe2, Re2PatternError, type Re2Options } from '../re2/re2-pattern.js';
import type { RE2JS } from 're2js';
import { feelLimits } from './feel-limits.js';
import { invalidArguments as invalid } from './builtin-function.js';

/**
 * FEEL's `matches`, `replace` and `split` on RE2 (linear-time matching) instead of feelin's, which use
 * JavaScript's backtracking RegExp. Semantics follow XPath's fn:matches / fn:replace / fn:tokenize as
 * FEEL specifies: flags `s`, `m`, `i`, `x`; `$0`–`$9` in a replacement, `\$` and `\\` escaped. A
 * pattern RE2 cannot compile (backreferences, lookaround), an unknown flag or a bad replacement make
 * the call null with a warning, as feelin does for an invalid pattern.
 */

/** The largest string `replace` may produce (characters); a larger result is null with a warning. */
export const MAX_REPLACE_RESULT_LENGTH = 10_000_000;

type Compiled = { ok: true; re: RE2JS } | { ok: false; failure: object };

function compile(fnName: string, pattern: unknown, flags: unknown): Compiled {
  if (typeof pattern !== 'string') {
    return {
      ok: false,
      failure: invalid(`${fnName}: the pattern must be a string, got {pattern}`, { pattern }),
    };
  }
  const flagText = flags === undefined || flags === null ? '' : flags;
  if (typeof flagText !== 'string' || /[^smix]/.test(flagText)) {
    return { ok: false, failure: invalid(`${fnName}: unsupported flags {flags} (s, m, i, x)`, { flags }) };
  }
  const options: Re2Options = {
    dotAll: flagText.includes('s'),
    multiline: flagText.includes('m'),
    caseInsensitive: flagText.includes('i'),
  };
  try {
    const source = flagText.includes('x') ? withoutWhitespace(pattern) : pattern;
    return { ok: true, re: compileRe2(source, options) };
  } catch (error) {
    if (!(error instanceof Re2PatternError)) throw error;
    return {
      ok: false,
      failure: invalid(`${fnName}: {pattern} is not a valid RE2 pattern (${error.reason})`, { pattern }),
    };
  }
}

// Flag x: whitespace is removed from the pattern except inside a character class (XPath).
function withoutWhitespace(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      out += ch + (pattern[i + 1] ?? '');
      i++;
    } else if (inClass) {
      out += ch;
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      out += ch;
      inClass = true;
    } else if (!/[\t\n\r ]/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

/** fn:matches: whether the pattern matches somewhere in the input. */
function matches(input: unknown, pattern: unknown, flags?: unknown): unknown {
  if (typeof input !== 'string')
    return invalid('matches: the input must be a string, got {input}', { input });
  const compiled = compile('matches', pattern, flags);
  return compiled.ok ? compiled.re.test(input) : compiled.failure;
}

type Part = { text: string } | { group: number };

// $N takes as many digits as still name a group (XPath); \$ and \\ are literal; any other $ or \ is
// an error.
function parseReplacement(replacement: string, groups: number): Part[] | null {
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i] ?? '';
    if (ch === '\\') {
      const next = replacement[i + 1];
      if (next !== '\\' && next !== '$') return null;
      text += next;
      i++;
    } else if (ch === '$') {
      let j = i + 1;
      if (!/[0-9]/.test(replacement[j] ?? '')) return null;
      let group = Number(replacement[j]);
      j++;
      while (/[0-9]/.test(replacement[j] ?? '') && group * 10 + Number(replacement[j]) <= groups) {
        group = group * 10 + Number(replacement[j]);
        j++;
      }
      if (text !== '') parts.push({ text });
      text = '';
      parts.push({ group: group <= groups ? group : -1 });
      i = j - 1;
    } else {
      text += ch;
    }
  }
  if (text !== '') parts.push({ text });
  return parts;
}

// The position after `at`, not splitting a surrogate pair.
function nextIndex(input: string, at: number): number {
  const code = input.charCodeAt(at);
  return code >= 0xd800 && code <= 0xdbff && at + 1 < input.length ? at + 2 : at + 1;
}

/** fn:replace: every non-overlapping match replaced; an empty match inserts before each character. */
function replace(input: unknown, pattern: unknown, replacement: unknown, flags?: unknown): unknown {
  if (typeof input !== 'string')
    return invalid('replace: the input must be a string, got {input}', { input });
  if (typeof replacement !== 'string') {
    return invalid('replace: the replacement must be a string, got {replacement}', { replacement });
  }
  const compiled = compile('replace', pattern, flags);
  if (!compiled.ok) return compiled.failure;
  const matcher = compiled.re.matcher(input);
  const parts = parseReplacement(replacement, matcher.groupCount());
  if (parts === null) {
    return invalid('replace: invalid replacement {replacement} (use $0-$9, \\$ and \\\\)', { replacement });
  }
  let out = '';
  let last = 0;
  for (let from = 0; from <= input.length && matcher.find(from);) {
    const start = matcher.start();
    const end = matcher.end();
    out += input.slice(last, start);
    for (const part of parts) out += 'text' in part ? part.text : (matcher.group(part.group) ?? '');
    if (out.length > MAX_REPLACE_RESULT_LENGTH) {
      return invalid(`replace: the result would be longer than ${MAX_REPLACE_RESULT_LENGTH} characters`);
    }
    last = end;
    from = end === start ? nextIndex(input, end) : end;
  }
  return out + input.slice(last);
}

/** fn:tokenize as FEEL's split: the parts between matches (an empty match splits between characters). */
function split(input: unknown, delimiter: unknown): unknown {
  if (typeof input !== 'string') return invalid('split: the string must be a string, got {input}', { input });
  const compiled = compile('split', delimiter, '');
  if (!compiled.ok) return compiled.failure;
  const matcher = compiled.re.matcher(input);
  const { maxListLength } = feelLimits();
  const parts: string[] = [];
  let last = 0;
  // JavaScript's String.prototype.split without captured groups: a match at the end, or an empty
  // match where the previous part began, does not split.
  for (let from = 0; from < input.length && matcher.find(from);) {
    const start = matcher.start();
    const end = matcher.end();
    if (start >= input.length) break;
    if (end === last) {
      from = nextIndex(input, start);
      continue;
    }
    parts.push(input.slice(last, start));
    if (parts.length >= maxListLength) {
      return invalid(`split: more than ${maxListLength} parts (WORKFLOW_FEEL_MAX_LIST_LENGTH)`);
    }
    last = end;
    from = end === start ? nextIndex(input, end) : end;
  }
  parts.push(input.slice(last));
  return parts;
}

/** The RE2-backed functions, by their FEEL names, as FEEL function values. */
export const regexFunctions: Readonly<Record<'matches' | 'replace' | 'split', FeelFunction>> = {
  matches: new FeelFunction(matches, ['input', 'pattern', 'flags']),
  replace: new FeelFunction(replace, ['input', 'pattern', 'replacement', 'flags']),
  split: new FeelFunction(split, ['string', 'delimiter']),
};
