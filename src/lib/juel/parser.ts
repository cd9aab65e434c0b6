/**
 * The parser of composite texts (`Hello ${name}!`) and of EL 2.2 eval expressions, by recursive
 * descent over the precedence levels of the EL specification (low to high):
 * `?:`, `||`/`or`, `&&`/`and`, `==`/`eq` `!=`/`ne`, `<`/`lt` `>`/`gt` `<=`/`le` `>=`/`ge`,
 * `+` `-`, `*` `/`/`div` `%`/`mod`, unary `-` `!`/`not` `empty`, then `.` `[]` and calls.
 * Method names are checked against the allow-list and function names against the built-ins here,
 * so that a refused expression never compiles.
 */
import type { BinaryOperator, JuelNode, JuelPart } from './ast.js';
import { JuelError } from './errors.js';
import { isJuelFunction, JUEL_FUNCTIONS } from './functions.js';
import type { Token } from './lexer.js';
import { scan } from './lexer.js';
import type { JuelLimits } from './limits.js';
import { ALLOWED_METHOD_NAMES } from './methods.js';

/** Finds the next unescaped `${` or `#{` at or after `from`; -1 when there is none. */
export function findExpressionStart(text: string, from: number): number {
  for (let i = from; i < text.length - 1; i++) {
    const ch = text[i];
    if (ch === '\\' && (text[i + 1] === '$' || text[i + 1] === '#') && text[i + 2] === '{') {
      i += 2;
      continue;
    }
    if ((ch === '$' || ch === '#') && text[i + 1] === '{') return i;
  }
  return -1;
}

/** Literal text with `\${` and `\#{` turned into `${` and `#{`. */
function unescapeLiteral(text: string): string {
  return text.replace(/\\([$#])\{/g, '$1{');
}

/** Parses a composite text into literal parts and expressions. Throws JuelError with a position. */
export function parseText(text: string, limits: JuelLimits): JuelPart[] {
  const parts: JuelPart[] = [];
  let marker: string | null = null;
  let at = 0;
  for (;;) {
    const start = findExpressionStart(text, at);
    if (start < 0) break;
    if (start > at) parts.push(unescapeLiteral(text.slice(at, start)));
    const kind = text[start]!;
    if (marker !== null && marker !== kind) {
      throw new JuelError('A text cannot mix ${…} and #{…} expressions', start);
    }
    marker = kind;
    const parser = new ExpressionParser(text, start + 2, limits.maxDepth);
    const node = parser.parseWhole(start);
    parts.push({ node, start });
    at = parser.end;
  }
  if (at < text.length) parts.push(unescapeLiteral(text.slice(at)));
  return parts;
}

const RELATIONAL: Readonly<Record<string, BinaryOperator>> = {
  '<': '<',
  lt: '<',
  '>': '>',
  gt: '>',
  '<=': '<=',
  le: '<=',
  '>=': '>=',
  ge: '>=',
};
const EQUALITY: Readonly<Record<string, BinaryOperator>> = { '==': '==', eq: '==', '!=': '!=', ne: '!=' };
const ADDITIVE: Readonly<Record<string, BinaryOperator>> = { '+': '+', '-': '-' };
const MULTIPLICATIVE: Readonly<Record<string, BinaryOperator>> = {
  '*': '*',
  '/': '/',
  div: '/',
  '%': '%',
  mod: '%',
};
const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'lt',
  'gt',
  'le',
  'ge',
  'div',
  'mod',
  'empty',
  'true',
  'false',
  'null',
  'instanceof',
]);

function lookup(table: Readonly<Record<string, BinaryOperator>>, token: Token): BinaryOperator | undefined {
  if (token.kind !== 'op' && token.kind !== 'ident') return undefined;
  return Object.prototype.hasOwnProperty.call(table, token.text) ? table[token.text] : undefined;
}

function shown(token: Token): string {
  return token.kind === 'eof' ? 'end of text' : `'${token.text}'`;
}

class ExpressionParser {
  private readonly tokens: Token[] = [];
  private scanFrom: number;
  private nesting = 0;
  private readonly depths = new WeakMap<JuelNode, number>();
  /** Offset just after the closing `}` once parseWhole returns. */
  end = 0;

  constructor(
    private readonly text: string,
    start: number,
    private readonly maxDepth: number,
  ) {
    this.scanFrom = start;
  }

  parseWhole(start: number): JuelNode {
    if (this.peek().kind === 'op' && this.peek().text === '}') {
      throw new JuelError('Empty expression', start);
    }
    const node = this.expression();
    const close = this.next();
    if (close.kind === 'eof')
      throw new JuelError(`Missing '}' to close the expression opened at position ${start}`, close.pos);
    if (close.kind !== 'op' || close.text !== '}')
      throw new JuelError(`Unexpected ${shown(close)}: expected '}' or an operator`, close.pos);
    this.end = close.pos + 1;
    return node;
  }

  private peek(ahead = 0): Token {
    while (this.tokens.length <= ahead) {
      const token = scan(this.text, this.scanFrom);
      this.tokens.push(token);
      this.scanFrom = token.pos + token.text.length;
      if (token.kind === 'eof') {
        while (this.tokens.length <= ahead) this.tokens.push(token);
      }
    }
    return this.tokens[ahead]!;
  }

  private next(): Token {
    const token = this.peek();
    this.tokens.shift();
    return token;
  }

  private isOp(text: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'op' && token.text === text;
  }

  private expect(text: string, context: string): Token {
    const token = this.next();
    if (token.kind !== 'op' || token.text !== text) {
      throw new JuelError(`Unexpected ${shown(token)}: expected '${text}' ${context}`, token.pos);
    }
    return token;
  }

  private node(node: JuelNode, ...children: JuelNode[]): JuelNode {
    const depth = 1 + Math.max(0, ...children.map((c) => this.depths.get(c) ?? 1));
    if (depth > this.maxDepth) throw this.tooDeep(node.pos);
    this.depths.set(node, depth);
    return node;
  }

  private tooDeep(pos: number): JuelError {
    return new JuelError(`The expression is nested deeper than ${this.maxDepth} levels`, pos);
  }

  private nested<T>(pos: number, parse: () => T): T {
    if (++this.nesting > this.maxDepth) throw this.tooDeep(pos);
    try {
      return parse();
    } finally {
      this.nesting--;
    }
  }

  private expression(): JuelNode {
    return this.nested(this.peek().pos, () => {
      const test = this.binary(0);
      if (!this.isOp('?')) return test;
      const mark = this.next();
      const then = this.expression();
      this.expect(':', `in the conditional opened at position ${mark.pos}`);
      const otherwise = this.expression();
      return this.node({ kind: 'conditional', pos: mark.pos, test, then, otherwise }, test, then, otherwise);
    });
  }

  private static readonly LEVELS: readonly Readonly<Record<string, BinaryOperator>>[] = [
    { '||': '||', or: '||' },
    { '&&': '&&', and: '&&' },
    EQUALITY,
    RELATIONAL,
    ADDITIVE,
    MULTIPLICATIVE,
  ];

  private binary(level: number): JuelNode {
    const table = ExpressionParser.LEVELS[level];
    if (table === undefined) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const op = lookup(table, this.peek());
      if (op === undefined) return left;
      const token = this.next();
      const right = this.binary(level + 1);
      left = this.node({ kind: 'binary', pos: token.pos, op, left, right }, left, right);
    }
  }

  private unary(): JuelNode {
    const token = this.peek();
    const op =
      token.kind === 'op' && (token.text === '-' || token.text === '!')
        ? token.text
        : token.kind === 'ident' && token.text === 'not'
          ? '!'
          : token.kind === 'ident' && token.text === 'empty'
            ? 'empty'
            : undefined;
    if (op === undefined) return this.value();
    this.next();
    const operand = this.nested(token.pos, () => this.unary());
    return this.node({ kind: 'unary', pos: token.pos, op, operand }, operand);
  }

  private value(): JuelNode {
    let node = this.prefix();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.next();
        if (name.kind !== 'ident')
          throw new JuelError(
            `Unexpected ${shown(name)}: expected a property or method name after '.'`,
            name.pos,
          );
        if (this.isOp('(')) {
          node = this.method(node, name.text, name.pos);
        } else {
          const key: JuelNode = { kind: 'literal', pos: name.pos, value: name.text };
          node = this.node({ kind: 'access', pos: name.pos, base: node, key }, node);
        }
      } else if (this.isOp('[')) {
        const open = this.next();
        const key = this.expression();
        this.expect(']', `to close the '[' at position ${open.pos}`);
        if (this.isOp('(')) {
          if (key.kind !== 'literal' || typeof key.value !== 'string') {
            throw new JuelError('A method called with brackets must be named by a string literal', key.pos);
          }
          node = this.method(node, key.value, key.pos);
        } else {
          node = this.node({ kind: 'access', pos: open.pos, base: node, key }, node, key);
        }
      } else {
        return node;
      }
    }
  }

  private method(base: JuelNode, name: string, pos: number): JuelNode {
    if (!ALLOWED_METHOD_NAMES.has(name)) {
      throw new JuelError(
        `Method '${name}' is not allowed in expressions (see the allowed methods in docs/workflow/juel.md)`,
        pos,
      );
    }
    const args = this.args();
    return this.node({ kind: 'method', pos, base, name, args }, base, ...args);
  }

  private args(): JuelNode[] {
    const open = this.expect('(', 'to open the arguments');
    const args: JuelNode[] = [];
    if (this.isOp(')')) {
      this.next();
      return args;
    }
    for (;;) {
      args.push(this.expression());
      const token = this.next();
      if (token.kind === 'op' && token.text === ')') return args;
      if (token.kind !== 'op' || token.text !== ',') {
        throw new JuelError(
          `Unexpected ${shown(token)}: expected ',' or ')' in the arguments opened at position ${open.pos}`,
          token.pos,
        );
      }
    }
  }

  private prefix(): JuelNode {
    const token = this.next();
    switch (token.kind) {
      case 'int':
      case 'float':
      case 'string':
        return this.node({ kind: 'literal', pos: token.pos, value: token.value as string | bigint | number });
      case 'op':
        if (token.text === '(') {
          const inner = this.expression();
          this.expect(')', `to close the '(' at position ${token.pos}`);
          return inner;
        }
        throw new JuelError(`Unexpected ${shown(token)}: expected a value`, token.pos);
      case 'eof':
        throw new JuelError(`Unexpected ${shown(token)}: expected a value`, token.pos);
      case 'ident':
        return this.identifier(token);
    }
  }

  private identifier(token: Token): JuelNode {
    const name = token.text;
    if (name === 'true' || name === 'false')
      return this.node({ kind: 'literal', pos: token.pos, value: name === 'true' });
    if (name === 'null') return this.node({ kind: 'literal', pos: token.pos, value: null });
    if (name === 'instanceof') throw new JuelError("'instanceof' is reserved and not supported", token.pos);
    if (KEYWORDS.has(name)) throw new JuelError(`Unexpected '${name}': expected a value`, token.pos);
    // prefix:name( is a namespaced function; whitespace around ':' makes it part of a conditional.
    if (this.isOp(':') && !this.peek().spaced) {
      const local = this.peek(1);
      if (local.kind === 'ident' && !local.spaced && this.isOp('(', 2)) {
        throw new JuelError(
          `Unknown function '${name}:${local.text}' (functions: ${Object.keys(JUEL_FUNCTIONS).join(', ')})`,
          token.pos,
        );
      }
    }
    if (!this.isOp('(')) return this.node({ kind: 'identifier', pos: token.pos, name });
    if (!isJuelFunction(name)) {
      throw new JuelError(
        `Unknown function '${name}' (functions: ${Object.keys(JUEL_FUNCTIONS).join(', ')})`,
        token.pos,
      );
    }
    const args = this.args();
    if (args.length > 0) throw new JuelError(`Function ${name}() takes no arguments`, token.pos);
    return this.node({ kind: 'function', pos: token.pos, name, args });
  }
}
