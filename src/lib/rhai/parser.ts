import type { FunctionDefinition, LiteralValue, Node, Script, SwitchCase } from './ast.js';
import { parseError } from './errors.js';
import type { Token } from './lexer.js';
import { Lexer } from './lexer.js';
import type { ResolvedLimits } from './limits.js';
import { KEYWORDS, RESERVED } from './words.js';

const PRECEDENCE: Record<string, number> = {
  '||': 30,
  '|': 30,
  '^': 30,
  '&&': 60,
  '&': 60,
  '==': 90,
  '!=': 90,
  in: 110,
  '!in': 110,
  '<': 130,
  '<=': 130,
  '>': 130,
  '>=': 130,
  '??': 135,
  '..': 140,
  '..=': 140,
  '+': 150,
  '-': 150,
  '*': 180,
  '/': 180,
  '%': 180,
  '**': 190,
  '<<': 210,
  '>>': 210,
};

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '&=', '|=', '^=']);

const BLOCK_STMTS = new Set(['if', 'switch', 'while', 'do', 'for', 'block', 'try', 'nop']);

/** Parse mode: a full script, or one expression (Rhai's `eval_expression`/`compile_expression`). */
export type ParseMode = 'script' | 'expression';

/** Parses Rhai source into a syntax tree, enforcing the expression depth and literal size limits. */
export function parseScript(source: string, limits: ResolvedLimits, mode: ParseMode = 'script'): Script {
  const tokens = new Lexer(source, limits.disabled).tokenize();
  return new Parser(tokens, limits, mode === 'expression').script();
}

class Parser {
  private i = 0;
  private depth = 0;
  private maxDepth: number;
  private loops = 0;
  private inFn = false;
  private blockLevel = 0;
  private readonly functions: FunctionDefinition[] = [];

  constructor(
    private toks: Token[],
    private readonly limits: ResolvedLimits,
    private readonly exprOnly: boolean,
  ) {
    this.maxDepth = limits.maxExprDepth;
  }

  script(): Script {
    if (this.exprOnly) {
      const e = this.expr();
      if (this.peek().kind !== 'eof')
        this.fail(this.peek(), 'BadInput', 'Expression mode allows one expression only');
      return { body: [e], functions: [] };
    }
    const body = this.statements(true);
    return { body, functions: this.functions };
  }

  private peek(o = 0): Token {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }

  private is(v: string, o = 0): boolean {
    const t = this.peek(o);
    return (t.kind === 'p' || t.kind === 'id') && t.text === v;
  }

  private eat(v: string): boolean {
    if (this.is(v)) {
      this.i++;
      return true;
    }
    return false;
  }

  private fail(t: Token, type: string, msg: string): never {
    throw parseError(type, msg, t.line, t.col);
  }

  private unexpected(t: Token, expected?: string): never {
    if (t.kind === 'reserved')
      this.fail(t, t.text.match(/^\w/) ? 'Reserved' : 'Reserved', `'${t.text}' is a disabled symbol`);
    if (t.kind === 'eof') this.fail(t, 'MissingToken', `Expecting ${expected ?? 'more input'}`);
    const text = t.kind === 'str' ? `"${t.text}"` : t.text;
    this.fail(t, 'BadInput', `Unexpected '${text}'${expected ? `, expecting ${expected}` : ''}`);
  }

  private expect(v: string): Token {
    const t = this.peek();
    if (!this.is(v)) {
      if (t.kind === 'reserved' && t.text !== v)
        this.fail(t, 'UnknownOperator', `'${t.text}' is a disabled symbol`);
      this.unexpected(t, `'${v}'`);
    }
    return this.next();
  }

  private ident(what = 'a name'): Token {
    const t = this.peek();
    if (t.kind !== 'id') {
      if (t.kind === 'reserved') this.fail(t, 'Reserved', `'${t.text}' is a disabled symbol`);
      this.unexpected(t, what);
    }
    if (KEYWORDS.has(t.text)) this.fail(t, 'Reserved', `'${t.text}' is a keyword`);
    if (RESERVED.has(t.text)) this.fail(t, 'Reserved', `'${t.text}' is a reserved keyword`);
    return this.next();
  }

  private enter(t: Token): void {
    if (++this.depth > this.maxDepth) this.fail(t, 'ExprTooDeep', 'Expression exceeds maximum complexity');
  }

  /** Statements until `}` (or end of input at top level). */
  private statements(top: boolean): Node[] {
    const out: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') {
        if (!top) this.fail(t, 'MissingToken', "Expecting '}' to close the block");
        return out;
      }
      if (!top && this.is('}')) return out;
      const s = this.statement(top);
      if (s.kind !== 'nop') out.push(s);
      if (this.eat(';')) continue;
      if (BLOCK_STMTS.has(s.kind) || s.kind === 'nop') continue;
      if (s.kind === 'while' && s.body.kind === 'block') continue;
      if (this.peek().kind === 'eof' || this.is('}')) continue;
      this.fail(this.peek(), 'MissingToken', "Expecting ';' to terminate this statement");
    }
  }

  private block(): Node {
    const t = this.expect('{');
    this.enter(t);
    this.blockLevel++;
    const body = this.statements(false);
    this.blockLevel--;
    this.expect('}');
    this.depth--;
    return { kind: 'block', body, line: t.line, col: t.col };
  }

  private statement(top: boolean): Node {
    const t = this.peek();
    this.enter(t);
    const s = this.statementInner(top, t);
    this.depth--;
    return s;
  }

  private statementInner(top: boolean, t: Token): Node {
    const { line, col } = t;
    if (t.kind === 'reserved') this.fail(t, 'Reserved', `'${t.text}' is a disabled symbol`);
    if (this.is(';')) return { kind: 'nop', line, col };
    if (t.kind === 'id') {
      switch (t.text) {
        case 'let':
        case 'const': {
          this.next();
          const name = this.ident('a variable name').text;
          let e: Node | undefined;
          if (this.eat('=')) e = this.expr();
          return { kind: 'let', name, operand: e, isConst: t.text === 'const', line, col };
        }
        case 'export': {
          this.next();
          if (!top || this.blockLevel > 0 || this.inFn)
            this.fail(t, 'WrongExport', 'Export must be at global level');
          if (this.is('let') || this.is('const')) return this.statementInner(top, this.peek());
          this.ident('a variable name');
          if (this.eat('as')) this.ident('an alias');
          return { kind: 'nop', line, col };
        }
        case 'import': {
          this.next();
          this.expr();
          if (this.eat('as')) this.ident('a module alias');
          return { kind: 'import', line, col };
        }
        case 'private':
        case 'fn':
          return this.fnDef(top, t);
        case 'if':
        case 'switch':
        case 'while':
        case 'loop':
        case 'do':
        case 'for':
        case 'try':
          return this.primary();
        case 'return':
        case 'throw': {
          this.next();
          const e = this.atStatementEnd() ? undefined : this.expr();
          return { kind: t.text, operand: e, line, col };
        }
        case 'break': {
          this.next();
          if (this.loops === 0) this.fail(t, 'LoopBreak', "'break' not inside a loop");
          const e = this.atStatementEnd() ? undefined : this.expr();
          return { kind: 'break', operand: e, line, col };
        }
        case 'continue':
          this.next();
          if (this.loops === 0) this.fail(t, 'LoopBreak', "'continue' not inside a loop");
          return { kind: 'continue', line, col };
      }
    }
    if (this.is('{')) {
      if (this.exprOnly) this.fail(t, 'BadInput', 'Statement blocks are not allowed in expressions');
      return this.block();
    }
    const lhs = this.expr();
    const op = this.peek();
    if ((op.kind === 'p' || op.kind === 'reserved') && ASSIGN_OPS.has(op.text)) {
      if (op.kind === 'reserved') this.fail(op, 'UnknownOperator', `'${op.text}' is a disabled symbol`);
      if (this.exprOnly) this.fail(op, 'BadInput', 'Assignments are not allowed in expressions');
      this.checkTarget(lhs);
      this.next();
      const e = this.expr();
      return { kind: 'assign', op: op.text, target: lhs, operand: e, line: op.line, col: op.col };
    }
    return lhs;
  }

  private atStatementEnd(): boolean {
    return this.is(';') || this.is('}') || this.peek().kind === 'eof' || this.is(',');
  }

  private checkTarget(n: Node): void {
    switch (n.kind) {
      case 'var':
      case 'this':
        return;
      case 'index':
      case 'prop':
        if (n.safe) break;
        return this.checkTarget(n.target);
      case 'lit':
        throw parseError('AssignmentToConstant', 'Cannot assign to a constant value', n.line, n.col);
      default:
        break;
    }
    throw parseError('AssignmentToInvalidLHS', 'Invalid left-hand side of assignment', n.line, n.col);
  }

  private fnDef(top: boolean, t: Token): Node {
    const isPrivate = this.eat('private');
    this.expect('fn');
    if (!top || this.blockLevel > 0 || this.inFn) {
      this.fail(t, 'WrongFnDefinition', 'Functions can only be defined at global level');
    }
    const nameTok = this.ident('a function name');
    const params = this.params('(', ')');
    for (const f of this.functions) {
      if (f.name === nameTok.text && f.params.length === params.length) {
        this.fail(nameTok, 'FnDuplicatedDefinition', `Function '${nameTok.text}' is already defined`);
      }
    }
    const body = this.fnBody(() => this.block());
    this.functions.push({
      name: nameTok.text,
      params,
      body,
      isPrivate,
      captures: [],
      line: t.line,
      col: t.col,
    });
    return { kind: 'nop', line: t.line, col: t.col };
  }

  private params(open: string, close: string): string[] {
    this.expect(open);
    const params: string[] = [];
    while (!this.is(close)) {
      const p = this.ident('a parameter name');
      if (params.includes(p.text)) this.fail(p, 'FnDuplicatedParam', `Duplicated parameter '${p.text}'`);
      params.push(p.text);
      if (!this.eat(',')) break;
    }
    this.expect(close);
    return params;
  }

  private fnBody(parse: () => Node): Node {
    const saved = [this.depth, this.maxDepth, this.loops, this.inFn, this.blockLevel] as const;
    this.depth = 0;
    this.maxDepth = this.limits.maxFunctionExprDepth;
    this.loops = 0;
    this.inFn = true;
    this.blockLevel = 0;
    try {
      return parse();
    } finally {
      [this.depth, this.maxDepth, this.loops, this.inFn, this.blockLevel] = saved;
    }
  }

  /** A full expression (no assignment). */
  expr(): Node {
    this.enter(this.peek());
    const e = this.binary(0);
    this.depth--;
    return e;
  }

  private binary(minPrec: number): Node {
    const saved = this.depth;
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'reserved' && PRECEDENCE[t.text] !== undefined) {
        this.fail(t, 'UnknownOperator', `'${t.text}' is a disabled symbol`);
      }
      if (t.kind !== 'p' && !(t.kind === 'id' && t.text === 'in')) break;
      const prec = PRECEDENCE[t.text];
      if (prec === undefined || prec < minPrec) break;
      this.next();
      this.enter(t);
      if (t.text === '..' || t.text === '..=') {
        const incl = t.text === '..=';
        const to =
          this.is(']') || this.is(')') || this.is(',') || this.is('{') ? undefined : this.binary(prec + 1);
        left = { kind: 'range', from: left, to, inclusive: incl, line: t.line, col: t.col };
        continue;
      }
      const right = this.binary(t.text === '**' ? prec : prec + 1);
      const op = t.text === 'in' ? 'in' : t.text;
      left = { kind: 'binary', op, left: left, right: right, line: t.line, col: t.col };
    }
    this.depth = saved;
    return left;
  }

  private unary(): Node {
    const t = this.peek();
    if (t.kind === 'p' && (t.text === '-' || t.text === '+' || t.text === '!')) {
      this.next();
      this.enter(t);
      const e = this.unary();
      this.depth--;
      if (t.text === '-' && e.kind === 'lit') {
        const v = e.value;
        if (v.type === 'int') {
          const n = typeof v.value === 'bigint' ? -v.value : -v.value;
          return { kind: 'lit', value: { type: 'int', value: normaliseBig(n) }, line: t.line, col: t.col };
        }
        if (v.type === 'float')
          return { kind: 'lit', value: { type: 'float', value: -v.value }, line: t.line, col: t.col };
      }
      if (t.text === '+' && e.kind === 'lit' && (e.value.type === 'int' || e.value.type === 'float'))
        return e;
      return { kind: 'unary', op: t.text, operand: e, line: t.line, col: t.col };
    }
    if (t.kind === 'p' && (t.text === '..' || t.text === '..=')) {
      this.next();
      const incl = t.text === '..=';
      const to =
        this.is(']') || this.is(')') || this.is(',') ? undefined : this.binary(PRECEDENCE['..']! + 1);
      return { kind: 'range', from: undefined, to, inclusive: incl, line: t.line, col: t.col };
    }
    return this.postfix(this.primary());
  }

  private postfix(e: Node): Node {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'p') return e;
      if (t.text === '.' || t.text === '?.') {
        this.next();
        const name = this.peek();
        if (name.kind !== 'id' && name.kind !== 'reserved')
          this.fail(name, 'PropertyExpected', 'Expecting a property name');
        if (name.kind === 'reserved') this.fail(name, 'Reserved', `'${name.text}' is a disabled symbol`);
        this.next();
        if (this.is('::'))
          this.fail(this.peek(), 'BadInput', 'Unexpected namespace qualifier in property access');
        if (this.is('!') && this.is('(', 1))
          this.fail(this.peek(), 'MalformedCapture', 'Method calls cannot capture scope');
        if (this.is('(')) {
          const args = this.args();
          e = {
            kind: 'method',
            target: e,
            name: name.text,
            args,
            safe: t.text === '?.',
            line: name.line,
            col: name.col,
          };
        } else {
          e = {
            kind: 'prop',
            target: e,
            name: name.text,
            safe: t.text === '?.',
            line: name.line,
            col: name.col,
          };
        }
        continue;
      }
      if (t.text === '[' || t.text === '?[') {
        this.next();
        this.enter(t);
        const idx = this.expr();
        this.depth--;
        this.expect(']');
        this.checkIndex(e, idx);
        e = { kind: 'index', target: e, index: idx, safe: t.text === '?[', line: t.line, col: t.col };
        continue;
      }
      return e;
    }
  }

  private checkIndex(obj: Node, idx: Node): void {
    const bad = (): never =>
      this.fail(this.toks[this.i - 1]!, 'MalformedIndexExpr', 'Invalid index expression');
    const boolish =
      idx.kind === 'binary' && ['&&', '||', '==', '!=', '<', '>', '<=', '>=', 'in', '!in'].includes(idx.op);
    const lit = idx.kind === 'lit' ? idx.value.type : undefined;
    if (obj.kind === 'array' || (obj.kind === 'lit' && obj.value.type === 'str')) {
      if ((lit !== undefined && lit !== 'int') || boolish || idx.kind === 'map' || idx.kind === 'array')
        bad();
    } else if (obj.kind === 'map') {
      if ((lit !== undefined && lit !== 'str' && lit !== 'char') || boolish || idx.kind === 'array') bad();
    }
  }

  private args(): Node[] {
    this.expect('(');
    const args: Node[] = [];
    while (!this.is(')')) {
      args.push(this.expr());
      if (!this.eat(',')) break;
    }
    this.expect(')');
    return args;
  }

  private lit(value: LiteralValue, t: Token): Node {
    return { kind: 'lit', value, line: t.line, col: t.col };
  }

  private primary(): Node {
    const t = this.peek();
    switch (t.kind) {
      case 'int':
        this.next();
        if (typeof t.int === 'bigint' && t.int > (1n << 63n) - 1n && !(this.toks[this.i - 2]?.text === '-')) {
          this.fail(t, 'BadInput', `Integer too large: ${t.text}`);
        }
        return this.lit({ type: 'int', value: t.int ?? 0 }, t);
      case 'float':
        this.next();
        return this.lit({ type: 'float', value: t.float ?? 0 }, t);
      case 'str':
        this.next();
        this.checkStringSize(t.text, t);
        return this.lit({ type: 'str', value: t.text }, t);
      case 'char':
        this.next();
        return this.lit({ type: 'char', value: t.text }, t);
      case 'interp':
        this.next();
        return this.interpolation(t);
      case 'reserved':
        this.fail(t, 'Reserved', `'${t.text}' is a disabled symbol`);
      // falls through (fail never returns)
      case 'eof':
        this.fail(t, 'MissingToken', 'Expecting an expression');
      // falls through
      case 'p':
        return this.punctPrimary(t);
      case 'id':
        return this.identPrimary(t);
    }
  }

  private checkStringSize(s: string, t: Token): void {
    if (
      s.length * 3 > this.limits.maxStringSize &&
      Buffer.byteLength(s, 'utf8') > this.limits.maxStringSize
    ) {
      this.fail(t, 'LiteralTooLarge', 'Length of string literal exceeds the maximum limit');
    }
  }

  private interpolation(t: Token): Node {
    const parts: Node[] = [];
    for (const p of t.parts ?? []) {
      if (typeof p === 'string') {
        if (p !== '') parts.push(this.lit({ type: 'str', value: p }, t));
        continue;
      }
      const saved = [this.toks, this.i] as const;
      this.toks = p;
      this.i = 0;
      const stmts: Node[] = [];
      while (this.peek().kind !== 'eof') {
        stmts.push(this.statement(false));
        if (!this.eat(';')) break;
      }
      if (this.peek().kind !== 'eof') this.unexpected(this.peek(), "'}'");
      [this.toks, this.i] = saved;
      parts.push(stmts.length === 1 ? stmts[0]! : { kind: 'block', body: stmts, line: t.line, col: t.col });
    }
    return { kind: 'interp', parts, line: t.line, col: t.col };
  }

  private punctPrimary(t: Token): Node {
    const { line, col } = t;
    switch (t.text) {
      case '(': {
        this.next();
        const close = this.peek();
        if (this.eat(')')) {
          if (close.line !== t.line || close.col !== t.col + 1)
            this.fail(close, 'BadInput', "Unit must be written '()'");
          return this.lit({ type: 'unit' }, t);
        }
        const e = this.expr();
        this.expect(')');
        return e;
      }
      case '[': {
        this.next();
        const items: Node[] = [];
        while (!this.is(']')) {
          items.push(this.expr());
          if (!this.eat(',')) break;
        }
        this.expect(']');
        if (items.length > this.limits.maxArraySize)
          this.fail(t, 'LiteralTooLarge', 'Size of array literal exceeds the maximum limit');
        return { kind: 'array', items, line, col };
      }
      case '#{': {
        this.next();
        const entries: [string, Node][] = [];
        while (!this.is('}')) {
          const k = this.peek();
          if (k.kind !== 'id' && k.kind !== 'str')
            this.fail(k, 'PropertyExpected', 'Expecting a property name');
          this.next();
          if (entries.some(([n]) => n === k.text))
            this.fail(k, 'DuplicatedProperty', `Duplicated property '${k.text}'`);
          this.expect(':');
          entries.push([k.text, this.expr()]);
          if (!this.eat(',')) break;
        }
        this.expect('}');
        if (entries.length > this.limits.maxMapSize)
          this.fail(t, 'LiteralTooLarge', 'Size of object map literal exceeds the maximum limit');
        return { kind: 'map', entries, line, col };
      }
      case '|':
      case '||':
        return this.closure(t);
      case '{':
        if (this.exprOnly) this.fail(t, 'BadInput', 'Statement blocks are not allowed in expressions');
        return this.block();
      default:
        this.unexpected(t);
    }
  }

  private closure(t: Token): Node {
    let params: string[] = [];
    if (t.text === '||') this.next();
    else params = this.params('|', '|');
    const fn = this.fnBody(() => {
      if (this.exprOnly && this.is('{'))
        this.fail(this.peek(), 'BadInput', 'Closures with statement blocks are not allowed in expressions');
      return this.statement(false);
    });
    return {
      kind: 'closure',
      fn: { name: '', params, body: fn, isPrivate: true, captures: [], line: t.line, col: t.col },
      line: t.line,
      col: t.col,
    };
  }

  private loopBody(): Node {
    this.loops++;
    try {
      return this.block();
    } finally {
      this.loops--;
    }
  }

  private identPrimary(t: Token): Node {
    const { line, col } = t;
    switch (t.text) {
      case 'true':
      case 'false':
        this.next();
        return this.lit({ type: 'bool', value: t.text === 'true' }, t);
      case 'this':
        this.next();
        return { kind: 'this', line, col };
      case 'if': {
        this.next();
        const cond = this.expr();
        const then = this.block();
        let els: Node | undefined;
        if (this.eat('else')) els = this.is('if') ? this.primary() : this.block();
        return { kind: 'if', condition: cond, then, else: els, line, col };
      }
      case 'while':
      case 'loop': {
        this.next();
        const cond = t.text === 'while' ? this.expr() : undefined;
        return { kind: 'while', condition: cond, body: this.loopBody(), line, col };
      }
      case 'do': {
        this.next();
        const body = this.loopBody();
        const kw = this.next();
        if (kw.text !== 'while' && kw.text !== 'until') this.unexpected(kw, "'while' or 'until'");
        return { kind: 'do', condition: this.expr(), until: kw.text === 'until', body, line, col };
      }
      case 'for': {
        this.next();
        let name: string;
        let counter: string | undefined;
        if (this.eat('(')) {
          name = this.ident('a variable name').text;
          this.expect(',');
          counter = this.ident('a counter variable name').text;
          this.expect(')');
        } else {
          name = this.ident('a variable name').text;
        }
        this.expect('in');
        const iter = this.expr();
        return { kind: 'for', name, counter, iter, body: this.loopBody(), line, col };
      }
      case 'try': {
        this.next();
        const body = this.block();
        this.expect('catch');
        let errVar: string | undefined;
        if (this.eat('(')) {
          errVar = this.ident('a variable name').text;
          this.expect(')');
        }
        return { kind: 'try', body, errVar, handler: this.block(), line, col };
      }
      case 'switch':
        return this.switchExpr(t);
      case 'global': {
        this.next();
        this.expect('::');
        const name = this.ident('a variable name');
        return { kind: 'global', name: name.text, line: name.line, col: name.col };
      }
    }
    if (RESERVED.has(t.text) || (KEYWORDS.has(t.text) && t.text !== 'in')) this.unexpected(t);
    this.next();
    const ns: string[] = [];
    let name = t;
    while (this.is('::')) {
      this.next();
      ns.push(name.text);
      name = this.ident('a name');
    }
    const bang = this.is('!') && this.is('(', 1);
    if (bang) this.next();
    if (this.is('(')) {
      return { kind: 'call', name: name.text, namespace: ns, args: this.args(), bang, line, col };
    }
    if (ns.length > 0) return { kind: 'global', name: `${ns.join('::')}::${name.text}`, line, col };
    return { kind: 'var', name: t.text, line, col };
  }

  private switchExpr(t: Token): Node {
    this.next();
    const subject = this.expr();
    this.expect('{');
    const cases: SwitchCase[] = [];
    let def: Node | undefined;
    let sawRange = false;
    while (!this.is('}')) {
      const ct = this.peek();
      if (def !== undefined) this.fail(ct, 'WrongSwitchDefaultCase', 'Default case must be the last');
      if (ct.kind === 'id' && ct.text === '_') {
        this.next();
        if (this.is('if'))
          this.fail(this.peek(), 'WrongSwitchCaseCondition', 'Default case cannot have a condition');
        this.expect('=>');
        def = this.caseBody();
      } else {
        const c: SwitchCase = {
          values: [],
          ranges: [],
          condition: undefined,
          body: { kind: 'nop', line: 0, col: 0 },
        };
        do {
          const vt = this.peek();
          const e = this.unary();
          if (this.is('..') || this.is('..=')) {
            const incl = this.next().text === '..=';
            const to = this.unary();
            if (e.kind !== 'lit' || e.value.type !== 'int' || to.kind !== 'lit' || to.value.type !== 'int') {
              this.fail(vt, 'WrongSwitchCaseCondition', 'Switch ranges must be integer literals');
            }
            c.ranges.push({ from: e.value.value, to: to.value.value, inclusive: incl });
            sawRange = true;
          } else {
            if (e.kind !== 'lit') this.fail(vt, 'ExprExpected', 'Switch cases must be literals');
            if (sawRange && (e.value.type === 'int' || e.value.type === 'float')) {
              this.fail(vt, 'WrongSwitchIntegerCase', 'Numeric cases must come before range cases');
            }
            c.values.push(e.value);
          }
        } while (this.eat('|'));
        if (this.eat('if')) c.condition = this.expr();
        this.expect('=>');
        c.body = this.caseBody();
        cases.push(c);
      }
      if (!this.eat(',') && !this.is('}')) {
        const prev = this.toks[this.i - 1];
        if (prev?.text !== '}') this.unexpected(this.peek(), "',' or '}'");
      }
    }
    this.expect('}');
    return { kind: 'switch', subject, cases, defaultCase: def, line: t.line, col: t.col };
  }

  private caseBody(): Node {
    if (this.is('{')) return this.block();
    return this.statement(false);
  }
}

function normaliseBig(n: number | bigint): number | bigint {
  if (typeof n === 'number') return n === 0 ? 0 : n;
  const num = Number(n);
  return Number.isSafeInteger(num) ? num : n;
}
