import { parseError } from './errors.js';

/** Token kinds: identifier/keyword, punctuation, literals, interpolated string, disabled symbol, end. */
export type TokenKind = 'id' | 'p' | 'int' | 'float' | 'str' | 'char' | 'interp' | 'reserved' | 'eof';

/** One lexical token with its 1-based position. */
export interface Token {
  kind: TokenKind;
  /** Identifier/keyword/punctuation text, string or char value. */
  text: string;
  line: number;
  col: number;
  /** Integer literal (`bigint` only beyond 2^53; `2^63` itself is allowed for a following negation). */
  int?: number | bigint;
  float?: number;
  /** Parts of a back-tick string: literal text and the tokens of each `${...}`. */
  parts?: (string | Token[])[];
}

const PUNCT = [
  '**=',
  '<<=',
  '>>=',
  '..=',
  '!in',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
  '..',
  '::',
  '=>',
  '->',
  '?.',
  '?[',
  '??',
  '#{',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '!',
  '&',
  '|',
  '^',
  '.',
  ',',
  ';',
  ':',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '?',
  '@',
  '$',
  '~',
];

const INT_MAX = (1n << 63n) - 1n;

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdChar = (c: string): boolean => isIdStart(c) || isDigit(c);

/** Splits Rhai source into tokens; disabled symbols become `reserved` tokens. */
export class Lexer {
  private pos = 0;
  private line = 1;
  private col = 1;

  constructor(
    private readonly src: string,
    private readonly disabled: ReadonlySet<string>,
  ) {}

  /** All tokens up to and including `eof`. */
  tokenize(): Token[] {
    const out = this.until(false);
    out.push({ kind: 'eof', text: '', line: this.line, col: this.col });
    return out;
  }

  private err(type: string, msg: string, line = this.line, col = this.col): never {
    throw parseError(type, msg, line, col);
  }

  private peek(o = 0): string {
    return this.src[this.pos + o] ?? '';
  }

  private advance(): string {
    const c = this.src[this.pos++] ?? '';
    if (c === '\n') {
      this.line++;
      this.col = 1;
    } else if (!(c >= '\udc00' && c <= '\udfff')) {
      this.col++;
    }
    return c;
  }

  /** Tokens until end of input, or (in an interpolation) until the matching `}`. */
  private until(inInterp: boolean): Token[] {
    const out: Token[] = [];
    let depth = 0;
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.src.length) {
        if (inInterp) this.err('BadInput', 'Unterminated string interpolation');
        return out;
      }
      const c = this.peek();
      if (inInterp) {
        // A map literal `#{` opens a brace the interpolation's closing `}` must not match.
        if (c === '{' || (c === '#' && this.peek(1) === '{')) depth++;
        else if (c === '}') {
          if (depth === 0) {
            this.advance();
            out.push({ kind: 'eof', text: '', line: this.line, col: this.col });
            return out;
          }
          depth--;
        }
      }
      out.push(this.next());
    }
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\uFEFF') {
        this.advance();
      } else if (c === '/' && this.peek(1) === '/') {
        while (this.pos < this.src.length && this.peek() !== '\n') this.advance();
      } else if (c === '/' && this.peek(1) === '*') {
        const line = this.line;
        const col = this.col;
        this.advance();
        this.advance();
        let depth = 1;
        while (depth > 0) {
          if (this.pos >= this.src.length) this.err('BadInput', 'Unterminated comment', line, col);
          if (this.peek() === '*' && this.peek(1) === '/') {
            depth--;
            this.advance();
          } else if (this.peek() === '/' && this.peek(1) === '*') {
            depth++;
            this.advance();
          }
          this.advance();
        }
      } else {
        return;
      }
    }
  }

  private next(): Token {
    const line = this.line;
    const col = this.col;
    const c = this.peek();
    if (isDigit(c)) return this.number(line, col);
    if (isIdStart(c)) {
      const start = this.pos;
      while (isIdChar(this.peek())) this.advance();
      const v = this.src.slice(start, this.pos);
      return { kind: this.disabled.has(v) ? 'reserved' : 'id', text: v, line, col };
    }
    if (c === '"') {
      this.advance();
      return { kind: 'str', text: this.quoted('"', line, col), line, col };
    }
    if (c === '`') return this.backtick(line, col);
    if (c === "'") {
      this.advance();
      const v = this.quoted("'", line, col);
      if ([...v].length !== 1) this.err('BadInput', 'Invalid character literal', line, col);
      return { kind: 'char', text: v, line, col };
    }
    if (c === '#' && (this.peek(1) === '"' || this.peek(1) === '#')) {
      const raw = this.raw(line, col);
      if (raw !== undefined) return { kind: 'str', text: raw, line, col };
    }
    if (c === '#' && this.peek(1) !== '{') this.err('UnknownOperator', "Unknown operator '#'", line, col);
    if (c > '\u007f' || (c < ' ' && c !== '\t')) {
      this.err('BadInput', `Unexpected character '${c}'`, line, col);
    }
    for (const p of PUNCT) {
      if (this.src.startsWith(p, this.pos)) {
        // `!in` must not swallow the start of an identifier such as `!index`
        if (p === '!in' && isIdChar(this.src[this.pos + 3] ?? '')) continue;
        for (let i = 0; i < p.length; i++) this.advance();
        return { kind: this.disabled.has(p) ? 'reserved' : 'p', text: p, line, col };
      }
    }
    this.err('BadInput', `Unexpected character '${c}'`, line, col);
  }

  private number(line: number, col: number): Token {
    const start = this.pos;
    const c1 = this.peek(1).toLowerCase();
    if (this.peek() === '0' && (c1 === 'x' || c1 === 'o' || c1 === 'b')) {
      this.advance();
      this.advance();
      const radix = c1 === 'x' ? 16 : c1 === 'o' ? 8 : 2;
      const digitsStart = this.pos;
      while (/[0-9a-fA-F_]/.test(this.peek())) this.advance();
      const digits = this.src.slice(digitsStart, this.pos).replaceAll('_', '');
      const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[01]+$/;
      if (!valid.test(digits))
        this.err('BadInput', `Invalid number: ${this.src.slice(start, this.pos)}`, line, col);
      let n = 0n;
      for (const d of digits.toLowerCase()) n = n * BigInt(radix) + BigInt(parseInt(d, 16));
      if (n >= 1n << 64n)
        this.err('BadInput', `Number too large: ${this.src.slice(start, this.pos)}`, line, col);
      return { kind: 'int', text: '', line, col, int: normalise(BigInt.asIntN(64, n)) };
    }
    while (isDigit(this.peek()) || this.peek() === '_') this.advance();
    let isFloat = false;
    if (this.peek() === '.' && this.peek(1) !== '.' && !isIdStart(this.peek(1))) {
      isFloat = true;
      this.advance();
      while (isDigit(this.peek()) || this.peek() === '_') this.advance();
    }
    const e = this.peek();
    if (
      (e === 'e' || e === 'E') &&
      (isDigit(this.peek(1)) || ((this.peek(1) === '+' || this.peek(1) === '-') && isDigit(this.peek(2))))
    ) {
      isFloat = true;
      this.advance();
      this.advance();
      while (isDigit(this.peek())) this.advance();
    }
    const text = this.src.slice(start, this.pos).replaceAll('_', '');
    if (isIdStart(this.peek())) this.err('BadInput', `Invalid number: ${text}${this.peek()}`, line, col);
    if (isFloat) return { kind: 'float', text: text, line, col, float: Number(text) };
    const n = BigInt(text);
    if (n > INT_MAX + 1n) this.err('BadInput', `Integer too large: ${text}`, line, col);
    return { kind: 'int', text: text, line, col, int: normalise(n) };
  }

  /** A `"` string or `'` char body after the opening quote, with escapes decoded. */
  private quoted(q: string, line: number, col: number): string {
    let out = '';
    for (;;) {
      if (this.pos >= this.src.length) this.err('BadInput', 'Unterminated string', line, col);
      const c = this.advance();
      if (c === q) {
        if (q === '"' && this.peek() === '"') {
          this.advance();
          out += '"';
          continue;
        }
        return out;
      }
      if (c === '\n' && q === '"') this.err('BadInput', 'Unterminated string', line, col);
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.advance();
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case '\\':
        case '"':
        case "'":
        case '`':
          out += e;
          break;
        case 'x':
        case 'u':
        case 'U': {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
          const hex = this.src.slice(this.pos, this.pos + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) {
            this.err('BadInput', `Invalid escape sequence: \\${e}${hex}`, this.line, this.col);
          }
          for (let i = 0; i < len; i++) this.advance();
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.err('BadInput', 'Invalid Unicode escape');
          out += String.fromCodePoint(cp);
          break;
        }
        case '\n':
          // line continuation: skip the newline and the next line's indentation
          while (this.peek() === ' ' || this.peek() === '\t') this.advance();
          break;
        case '\r':
          if (this.peek() === '\n') this.advance();
          while (this.peek() === ' ' || this.peek() === '\t') this.advance();
          break;
        default:
          this.err('BadInput', `Invalid escape sequence: \\${e}`, this.line, this.col);
      }
    }
  }

  /** `#"..."#` raw strings (any number of `#`); undefined when this is not one. */
  private raw(line: number, col: number): string | undefined {
    let hashes = 0;
    while (this.peek(hashes) === '#') hashes++;
    if (this.peek(hashes) !== '"') return undefined;
    for (let i = 0; i <= hashes; i++) this.advance();
    const close = '"' + '#'.repeat(hashes);
    const end = this.src.indexOf(close, this.pos);
    if (end < 0) {
      while (this.pos < this.src.length) this.advance();
      this.err('BadInput', 'Unterminated raw string', line, col);
    }
    const body = this.src.slice(this.pos, end);
    while (this.pos < end + close.length) this.advance();
    return body;
  }

  /** Back-tick string: verbatim text with `${expr}` interpolation; a first empty line is dropped. */
  private backtick(line: number, col: number): Token {
    this.advance();
    if (this.peek() === '\n') this.advance();
    else if (this.peek() === '\r' && this.peek(1) === '\n') {
      this.advance();
      this.advance();
    }
    const parts: (string | Token[])[] = [];
    let text = '';
    for (;;) {
      if (this.pos >= this.src.length) this.err('BadInput', 'Unterminated string', line, col);
      const c = this.advance();
      if (c === '`') {
        if (this.peek() === '`') {
          this.advance();
          text += '`';
          continue;
        }
        break;
      }
      if (c === '$' && this.peek() === '{') {
        this.advance();
        parts.push(text);
        text = '';
        parts.push(this.until(true));
        continue;
      }
      text += c;
    }
    if (parts.length === 0) return { kind: 'str', text: text, line, col };
    parts.push(text);
    return { kind: 'interp', text: '', line, col, parts };
  }
}

function normalise(n: bigint): number | bigint {
  const num = Number(n);
  return Number.isSafeInteger(num) ? num : n;
}
