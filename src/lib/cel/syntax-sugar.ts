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
 * `has(e.f)` whose selection starts at an expression rather than a variable (`has({}.a)`,
 * `has(x[0].f)`), which cel-js's `has` refuses, as `cel.bind(v, e, has(v.f))`.
 */
function withBoundPresenceRoots(source: string, depth = 0): string {
  const masked = maskLiterals(source);
  for (const call of masked.matchAll(/(?<![\w.]\s*)has\s*\(/g)) {
    const open = call.index + call[0].length - 1;
    const close = closingBracket(masked, open);
    if (close < 0) continue;
    const content = masked.slice(open + 1, close);
    const chain = /(?:\s*\.\s*\??\s*[A-Za-z_]\w*)+\s*$/.exec(content);
    if (!chain) continue;
    const root = content.slice(0, chain.index);
    if (root.trim() === '' || /^\s*[A-Za-z_]\w*\s*$/.test(root)) continue;
    const variable = `__cel_has_root_${depth}_${call.index}__`;
    const bound = withBoundPresenceRoots(source.slice(open + 1, open + 1 + root.length), depth + 1);
    const select = source.slice(open + 1 + chain.index, close);
    const rewritten = `cel.bind(${variable}, ${bound}, has(${variable}${select}))`;
    return (
      source.slice(0, call.index) + rewritten + withBoundPresenceRoots(source.slice(close + 1), depth + 1)
    );
  }
  return source;
}

/**
 * `source` with CEL syntax that cel-js does not parse written in equivalent syntax it does:
 * a float literal without its leading zero (`.5`), and quoted field names (`` m.`content-type` ``,
 * `` m.?`a.b` ``, `` has(m.`x-y`) ``), which on JSON maps select keys, and optional entries of list
 * and map literals (`[?a]`, `{?'k': v}`); and `has()` of a selection on an expression.
 */
export function withPlainSyntax(source: string): string {
  let out = source;
  if (out.includes('`')) {
    out = withQuotedPresenceTests(out);
    out = replaceCode(out, quotedField, ([, optional, key]) => `[${optional ? '?' : ''}"${key}"]`);
  }
  out = withBoundPresenceRoots(withOptionalEntries(out));
  // A `.` that starts an operand (after an operator, a bracket, a comma or the start) and a digit.
  return replaceCode(out, /(?<=(?:^|[-+*/%<>=!&|?:,([{])\s*)\.(?=\d)/g, () => '0.');
}
