/**
 * `source` with `replace` applied to its code only: string and bytes literals (quoted, triple-quoted,
 * raw) and `//` comments are left as they are.
 */
export function replaceInCode(source: string, replace: (code: string) => string): string {
  let out = '';
  let code = '';
  let at = 0;
  while (at < source.length) {
    const char = source[at] as string;
    if (char === '/' && source[at + 1] === '/') {
      const end = source.indexOf('\n', at);
      const stop = end < 0 ? source.length : end;
      out += replace(code) + source.slice(at, stop);
      code = '';
      at = stop;
      continue;
    }
    if (char !== '"' && char !== "'") {
      code += char;
      at++;
      continue;
    }
    const raw = /(?<!\w)(?:[rR][bB]?|[bB][rR])$/.test(code);
    const quote = source.startsWith(char.repeat(3), at) ? char.repeat(3) : char;
    let end = at + quote.length;
    while (end < source.length && !source.startsWith(quote, end)) end += !raw && source[end] === '\\' ? 2 : 1;
    end = Math.min(source.length, end + quote.length);
    out += replace(code) + source.slice(at, end);
    code = '';
    at = end;
  }
  return out + replace(code);
}
