/** The tokens of an eval expression, scanned on demand from a position in the whole text. */
import { JuelError } from './errors.js';

/** Token kinds: literals, identifiers (keywords too), operators and punctuation, the text's end. */
export type TokenKind = 'int' | 'float' | 'string' | 'ident' | 'op' | 'eof';

/** One token; `pos` is its 0-based offset in the whole text. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly pos: number;
  /** The value of a literal: a String's unescaped text, an integer or float. */
  readonly value?: string | bigint | number;
  /** Whitespace came right before the token. */
  readonly spaced: boolean;
}

const OPERATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '}',
];
// EL 3.0 operators that EL 2.2 (Camunda's JUEL) does not have: named so their error is clear.
const EL3_OPERATORS = ['+=', '->', '=', ';', '{'];
const LONG_MAX = (1n << 63n) - 1n;

const IDENT_START = /[\p{L}_$]/u;
const IDENT_PART = /[\p{L}\p{N}_$]/u;

/** Scans one token at `at` (skipping whitespace first). Throws JuelError on a malformed token. */
export function scan(text: string, at: number): Token {
  let pos = at;
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  const spaced = pos > at;
  if (pos >= text.length) return { kind: 'eof', text: '', pos, spaced };
  const ch = text[pos]!;
  if (ch === "'" || ch === '"') return scanString(text, pos, spaced);
  if (/\d/.test(ch) || (ch === '.' && /\d/.test(text[pos + 1] ?? ''))) return scanNumber(text, pos, spaced);
  if (IDENT_START.test(ch)) {
    let end = pos + 1;
    while (end < text.length && IDENT_PART.test(text[end]!)) end++;
    return { kind: 'ident', text: text.slice(pos, end), pos, spaced };
  }
  for (const op of EL3_OPERATORS) {
    if (
      text.startsWith(op, pos) &&
      !OPERATORS.some((o) => o.length >= op.length && text.startsWith(o, pos))
    ) {
      throw new JuelError(`'${op}' is not part of the expression language Camunda 7 supports (EL 2.2)`, pos);
    }
  }
  const op = OPERATORS.find((o) => text.startsWith(o, pos));
  if (op === undefined) throw new JuelError(`Unexpected character '${ch}'`, pos);
  return { kind: 'op', text: op, pos, spaced };
}

function scanString(text: string, start: number, spaced: boolean): Token {
  const quote = text[start]!;
  let value = '';
  let pos = start + 1;
  while (pos < text.length) {
    const ch = text[pos]!;
    if (ch === quote) return { kind: 'string', text: text.slice(start, pos + 1), pos: start, value, spaced };
    if (ch === '\\') {
      const next = text[pos + 1];
      if (next !== '\\' && next !== "'" && next !== '"') {
        throw new JuelError(`Invalid escape in a string literal: only \\\\, \\' and \\" are allowed`, pos);
      }
      value += next;
      pos += 2;
      continue;
    }
    value += ch;
    pos++;
  }
  throw new JuelError('Unterminated string literal', start);
}

function scanNumber(text: string, start: number, spaced: boolean): Token {
  const match = /^(\d*)(\.\d*)?([eE][+-]?\d+)?/.exec(text.slice(start))!;
  const literal = match[0];
  const end = start + literal.length;
  if (IDENT_START.test(text[end] ?? ''))
    throw new JuelError(`Malformed number '${literal}${text[end]}'`, start);
  if (match[2] === undefined && match[3] === undefined) {
    const value = BigInt(literal);
    if (value > LONG_MAX) throw new JuelError(`Integer literal ${literal} is beyond the Long range`, start);
    return { kind: 'int', text: literal, pos: start, value, spaced };
  }
  return { kind: 'float', text: literal, pos: start, value: Number(literal), spaced };
}
