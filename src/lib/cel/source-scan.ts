/** The [start, end) spans of a CEL source's string and bytes literals (any quoting, raw) and `//` comments. */
export function literalSpans(source: string): [number, number][] {
  const spans: [number, number][] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at] as string;
    if (char === '/' && source[at + 1] === '/') {
      const end = source.indexOf('\n', at);
      spans.push([at, end < 0 ? source.length : end]);
      at = end < 0 ? source.length : end;
      continue;
    }
    if (char !== '"' && char !== "'") {
      at++;
      continue;
    }
    const raw = /(?<!\w)(?:[rR][bB]?|[bB][rR])$/.test(source.slice(Math.max(0, at - 3), at));
    const quote = source.startsWith(char.repeat(3), at) ? char.repeat(3) : char;
    let end = at + quote.length;
    while (end < source.length && !source.startsWith(quote, end)) end += !raw && source[end] === '\\' ? 2 : 1;
    end = Math.min(source.length, end + quote.length);
    spans.push([at, end]);
    at = end;
  }
  return spans;
}

/**
 * `source` with `replace` applied to its code only: string and bytes literals and `//` comments are
 * left as they are.
 */
export function replaceInCode(source: string, replace: (code: string) => string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of literalSpans(source)) {
    out += replace(source.slice(at, start)) + source.slice(start, end);
    at = end;
  }
  return out + replace(source.slice(at));
}

/** `source` with each character of its literals and comments made `_`, so code can be scanned by position. */
export function maskLiterals(source: string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of literalSpans(source)) {
    out += source.slice(at, start) + '_'.repeat(end - start);
    at = end;
  }
  return out + source.slice(at);
}

/** The index of the bracket closing the one at `open` in a masked source, or -1. */
export function closingBracket(masked: string, open: number): number {
  let depth = 0;
  for (let at = open; at < masked.length; at++) {
    const char = masked[at] as string;
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth === 0) return at;
  }
  return -1;
}
