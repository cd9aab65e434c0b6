import { Optional, type Environment } from '../cel-engine/index.js';
import { celEquals, type CelValue } from './cel-values.js';
import { closingBracket, maskLiterals } from './source-scan.js';

const listFunction = '__cel_optional_list';
const mapFunction = '__cel_optional_map';

/** The top-level parts of `masked` split at `separator` (outside brackets), as [start, end) spans. */
function topLevelSplit(masked: string, separator: string): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < masked.length; at++) {
    const char = masked[at] as string;
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (depth === 0 && char === separator) {
      parts.push([start, at]);
      start = at + 1;
    }
  }
  parts.push([start, masked.length]);
  return parts;
}

/** Where a map entry's key ends: the first top-level `:` that does not close a `? :` conditional. */
function entryColon(masked: string): number {
  let depth = 0;
  let conditionals = 0;
  for (let at = 0; at < masked.length; at++) {
    const char = masked[at] as string;
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (depth === 0 && char === '?' && masked[at - 1] !== '.') conditionals++;
    else if (depth === 0 && char === ':' && conditionals-- === 0) return at;
  }
  return -1;
}

/**
 * `source` with list and map literals that hold optional entries (`[a, ?b]`, `{?'k': v}`, which
 * cel-js does not parse) written as calls that drop the entries whose optional is empty.
 */
export function withOptionalEntries(source: string): string {
  if (!source.includes('?')) return source;
  const masked = maskLiterals(source);
  let out = '';
  let at = 0;
  for (let index = 0; index < masked.length; index++) {
    const char = masked[index] as string;
    if (char !== '[' && char !== '{') continue;
    // A bracket after an operand is an index or a message, not a literal (`in` is an operator).
    const before = masked.slice(Math.max(0, index - 40), index);
    if (/[\w)\]}.]\s*$/.test(before) && !/(?<![\w.])in\s*$/.test(before)) continue;
    const close = closingBracket(masked, index);
    if (close < 0) continue;
    const inner = masked.slice(index + 1, close);
    const parts = topLevelSplit(inner, ',').filter(([start, end]) => inner.slice(start, end).trim() !== '');
    const optional = parts.map(([start, end]) => inner.slice(start, end).trimStart().startsWith('?'));
    if (!optional.includes(true)) continue;
    const text = (start: number, end: number) =>
      withOptionalEntries(source.slice(index + 1 + start, index + 1 + end));
    const unmark = (start: number, end: number) => {
      const offset = inner.slice(start, end).indexOf('?');
      return [start + offset + 1, end] as [number, number];
    };
    const entries = parts.map(([start, end], i) =>
      optional[i] ? unmark(start, end) : ([start, end] as [number, number]),
    );
    let call: string;
    if (char === '[') call = `${listFunction}([${entries.map(([s, e]) => text(s, e)).join(', ')}]`;
    else {
      const pairs = entries.map(([start, end]) => {
        const colon = entryColon(inner.slice(start, end));
        if (colon < 0) return undefined;
        return `[${text(start, start + colon)}, ${text(start + colon + 1, end)}]`;
      });
      if (pairs.includes(undefined)) continue;
      call = `${mapFunction}([${pairs.join(', ')}]`;
    }
    out += source.slice(at, index) + `${call}, [${optional.join(', ')}])`;
    at = close + 1;
    index = close;
  }
  return out + source.slice(at);
}

function present(value: CelValue, flagged: boolean): { keep: boolean; value: CelValue } {
  if (!flagged) return { keep: true, value };
  if (!(value instanceof Optional)) throw new Error('an optional entry must be an optional value');
  return value.hasValue() ? { keep: true, value: value.value() } : { keep: false, value: undefined };
}

/** Registers the functions `withOptionalEntries` writes optional list and map entries as. */
export function registerOptionalEntries(env: Environment): Environment {
  return env
    .registerFunction(`${listFunction}(list, list): list`, (items: CelValue[], flags: boolean[]) =>
      items.flatMap((item, i) => {
        const entry = present(item, flags[i] === true);
        return entry.keep ? [entry.value] : [];
      }),
    )
    .registerFunction(
      `${mapFunction}(list, list): map`,
      (pairs: [CelValue, CelValue][], flags: boolean[]) => {
        const entries: [CelValue, CelValue][] = [];
        pairs.forEach(([key, value], i) => {
          if (entries.some(([other]) => celEquals(other, key)))
            throw new Error(`repeated key: ${String(key)}`);
          const entry = present(value, flags[i] === true);
          if (entry.keep) entries.push([key, entry.value]);
        });
        return entries.every(([key]) => typeof key === 'string')
          ? Object.fromEntries(entries as [string, CelValue][])
          : new Map(entries);
      },
    );
}
