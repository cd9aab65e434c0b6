import { withOptionalEntries } from './optional-entries.js';
import { closingBracket, maskLiterals } from './source-scan.js';

/** `source` with each match of `pattern` in its code (not in literals) replaced. */
function replaceCode(source: string, pattern: RegExp, replace: (match: RegExpExecArray) => string): string {
  const matches = [...maskLiterals(source).matchAll(pattern)];
  let out = source;
  for (const match of matches.reverse()) {
    const text = source.slice(match.index, match.index + match[0].length);
    const original = Object.assign([text, ...match.slice(1)], {
      index: match.index,
      input: source,
    }) as RegExpExecArray;
    out = out.slice(0, match.index) + replace(original) + out.slice(match.index + match[0].length);
  }
  return out;
}

const quotedField = /\.\s*(\?\s*)?`([A-Za-z0-9_.\-/ ]+)`/g;

/** `has(x.\`key\`)` as `("key" in x)`: a presence test of a map key (on JSON data, fields are keys). */
function withQuotedPresenceTests(source: string): string {
  const masked = maskLiterals(source);
  for (const call of masked.matchAll(/(?<![\w.]\s*)has\s*\(/g)) {
    const open = call.index + call[0].length - 1;
    const close = closingBracket(masked, open);
    if (close < 0) continue;
    const last = /^([\s\S]*)\.\s*`([A-Za-z0-9_.\-/ ]+)`\s*$/.exec(masked.slice(open + 1, close));
    if (!last?.[1]?.trim()) continue;
    const subject = source.slice(open + 1, open + 1 + last[1].length);
    const rewritten = `("${last[2]}" in (${subject}))`;
    return withQuotedPresenceTests(source.slice(0, call.index) + rewritten + source.slice(close + 1));
  }
  return source;
}

/**
 * `source` with CEL syntax that cel-js does not parse written in equivalent syntax it does:
 * a float literal without its leading zero (`.5`), and quoted field names (`` m.`content-type` ``,
 * `` m.?`a.b` ``, `` has(m.`x-y`) ``), which on JSON maps select keys, and optional entries of list
 * and map literals (`[?a]`, `{?'k': v}`).
 */
export function withPlainSyntax(source: string): string {
  let out = source;
  if (out.includes('`')) {
    out = withQuotedPresenceTests(out);
    out = replaceCode(out, quotedField, ([, optional, key]) => `[${optional ? '?' : ''}"${key}"]`);
  }
  out = withOptionalEntries(out);
  // A `.` that starts an operand (after an operator, a bracket, a comma or the start) and a digit.
  return replaceCode(out, /(?<=(?:^|[-+*/%<>=!&|?:,([{])\s*)\.(?=\d)/g, () => '0.');
}
