import type { FnDef, LitValue, Node, Script } from './ast.js';
import { parseError, RhaiError } from './errors.js';
import { getIndex, setIndex } from './indexing.js';
import { arith, asFnPtr, compare, contains, noOperator, unary } from './operators.js';
import type { DynScope, Ev, ScriptFn, Slot } from './runtime.js';
import {
  callFnPtr,
  callScript,
  checkResult,
  checkSize,
  checkString,
  CTL_BREAK,
  CTL_CONTINUE,
  CTL_NONE,
  CTL_RETURN,
  Frame,
  readSlot,
  rootError,
  rtError,
  tick,
  withPos,
  wrapFnError,
} from './runtime.js';
import { lookupBuiltin } from './stdlib/registry.js';
import type { ClosureValue, RMap, RValue, ThisRef } from './values.js';
import {
  chars,
  FnPtr,
  own,
  RBlob,
  RChar,
  RFloat,
  RFloatRange,
  RRange,
  SharedCell,
  toDisplay,
  typeOf,
  valuesEqual,
} from './values.js';

/** Marks top-level slots whose `let` has not run yet (never read as a value). */
export const UNBOUND: SharedCell = Object.freeze(new SharedCell(undefined));

/** A compiled script, ready to run any number of times. */
export interface CompiledScript {
  body: Ev;
  nslots: number;
  /** Top-level variables in declaration order (a later one shadows an earlier one of the same name). */
  topVars: { name: string; slot: number }[];
  fns: Map<string, ScriptFn>;
}

type Ref = { k: 'slot'; slot: number; isConst: boolean } | { k: 'ext' } | { k: 'dyn' };
type Updater = (f: Frame, fn: (old: RValue) => RValue) => void;

interface VarInfo {
  name: string;
  slot: number;
  isConst: boolean;
}

class FnScope {
  vars: VarInfo[] = [];
  nslots = 0;
  readonly captured = new Map<string, VarInfo>();
  readonly captures: { slot: number; from: Ref; name: string }[] = [];
  constructor(
    readonly kind: 'top' | 'fn' | 'closure',
    readonly parent: FnScope | undefined,
  ) {}

  declare(name: string, isConst: boolean): VarInfo {
    const v = { name, slot: this.nslots++, isConst };
    this.vars.push(v);
    return v;
  }

  find(name: string): VarInfo | undefined {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i];
    return this.captured.get(name);
  }
}

const INT_MAX = (1n << 63n) - 1n;

/** Turns a literal into a run-time value. */
export function litValue(v: LitValue): RValue {
  switch (v.t) {
    case 'int':
    case 'str':
    case 'bool':
      return v.v;
    case 'float':
      return new RFloat(v.v);
    case 'char':
      return new RChar(v.v);
    case 'unit':
      return undefined;
  }
}

const FRESH = new Set(['lit', 'interp', 'array', 'map', 'unary', 'range', 'call', 'method', 'closure']);

/** Compiles a parsed script into closures with variables resolved to slots. */
export function compileScript(script: Script): CompiledScript {
  return new Compiler(script).compile();
}

class Compiler {
  private scope = new FnScope('top', undefined);
  private blockDepth = 0;
  private readonly topVars: { name: string; slot: number }[] = [];
  private readonly fns = new Map<string, ScriptFn>();
  private closureId = 0;

  constructor(private readonly script: Script) {}

  compile(): CompiledScript {
    for (const d of this.script.fns) {
      this.fns.set(`${d.name}/${d.params.length}`, {
        name: d.name,
        arity: d.params.length,
        nslots: 0,
        body: () => undefined,
      });
    }
    for (const d of this.script.fns) {
      const fn = this.fns.get(`${d.name}/${d.params.length}`)!;
      const saved = [this.scope, this.blockDepth] as const;
      this.scope = new FnScope('fn', undefined);
      this.blockDepth = 1;
      for (const p of d.params) this.scope.declare(p, false);
      fn.body = this.stmt(d.body);
      fn.nslots = this.scope.nslots;
      [this.scope, this.blockDepth] = saved;
    }
    const body = this.seq(this.script.body);
    return { body, nslots: this.scope.nslots, topVars: this.topVars, fns: this.fns };
  }

  // ---- scopes ----

  private resolve(name: string, scope: FnScope = this.scope): Ref {
    const v = scope.find(name);
    if (v) return { k: 'slot', slot: v.slot, isConst: v.isConst };
    if (scope.kind === 'top') return { k: 'ext' };
    if (scope.kind === 'fn') return { k: 'dyn' };
    const outer = this.resolve(name, scope.parent);
    if (outer.k === 'dyn') return outer;
    const isConst = outer.k === 'slot' && outer.isConst;
    const info = { name, slot: scope.nslots++, isConst };
    scope.captured.set(name, info);
    scope.captures.push({ slot: info.slot, from: outer, name });
    return { k: 'slot', slot: info.slot, isConst };
  }

  private isVisible(name: string): boolean {
    for (let s: FnScope | undefined = this.scope; s; s = s.kind === 'closure' ? s.parent : undefined) {
      if (s.find(name)) return true;
    }
    return false;
  }

  private visibleNames(): Map<string, number> {
    const names = new Map<string, number>();
    for (const [n, v] of this.scope.captured) names.set(n, v.slot);
    for (const v of this.scope.vars) names.set(v.name, v.slot);
    return names;
  }

  // ---- statements ----

  private seq(nodes: Node[]): Ev {
    const evs = nodes.map((n) => this.stmt(n));
    const lines = nodes.map((n) => n.line);
    const cols = nodes.map((n) => n.col);
    const n = evs.length;
    if (n === 0) return () => undefined;
    if (n === 1) {
      const e = evs[0]!;
      const line = lines[0]!;
      const col = cols[0]!;
      return (f) => {
        try {
          return e(f);
        } catch (err) {
          throw withPos(err, line, col);
        }
      };
    }
    return (f) => {
      const c = f.c;
      let r: RValue;
      let i = 0;
      try {
        for (; i < n; i++) {
          r = evs[i]!(f);
          if (c.ctl !== CTL_NONE) return r;
        }
      } catch (err) {
        throw withPos(err, lines[i]!, cols[i]!);
      }
      return r;
    };
  }

  private block(nodes: Node[]): Ev {
    const mark = this.scope.vars.length;
    this.blockDepth++;
    const ev = this.seq(nodes);
    this.blockDepth--;
    this.scope.vars.length = mark;
    return ev;
  }

  private stmt(n: Node): Ev {
    switch (n.k) {
      case 'let':
        return this.letStmt(n);
      case 'assign':
        return this.assign(n);
      case 'return':
      case 'break': {
        const e = n.e ? this.owned(n.e) : undefined;
        const ctl = n.k === 'return' ? CTL_RETURN : CTL_BREAK;
        return (f) => {
          const c = f.c;
          tick(c);
          const v = e ? e(f) : undefined;
          c.ctl = ctl;
          c.ctlValue = v;
          return v;
        };
      }
      case 'continue':
        return (f) => {
          tick(f.c);
          f.c.ctl = CTL_CONTINUE;
          return undefined;
        };
      case 'throw': {
        const e = n.e ? this.owned(n.e) : undefined;
        return (f) => {
          const c = f.c;
          tick(c);
          if (!e && c.caught) throw c.caught;
          const v = e ? e(f) : undefined;
          throw new RhaiError('ErrorRuntime', toDisplay(v), n.line, n.col, { thrown: v });
        };
      }
      case 'import':
        return () => {
          throw rtError('ErrorModuleNotFound', 'Modules are not available', n.line, n.col);
        };
      case 'nop':
        return () => undefined;
      default: {
        const e = this.expr(n);
        return (f) => {
          tick(f.c);
          return e(f);
        };
      }
    }
  }

  private letStmt(n: Extract<Node, { k: 'let' }>): Ev {
    const init = n.e ? this.owned(n.e) : undefined;
    const v = this.scope.declare(n.name, n.isConst);
    const slot = v.slot;
    const top = this.scope.kind === 'top' && this.blockDepth === 0;
    if (top) this.topVars.push({ name: n.name, slot });
    if (top && n.isConst) {
      const name = n.name;
      return (f) => {
        tick(f.c);
        const x = init ? init(f) : undefined;
        f.s[slot] = x;
        f.c.globalConsts.set(name, x);
        return undefined;
      };
    }
    if (!init) {
      return (f) => {
        tick(f.c);
        f.s[slot] = undefined;
        return undefined;
      };
    }
    return (f) => {
      tick(f.c);
      f.s[slot] = init(f);
      return undefined;
    };
  }

  private assign(n: Extract<Node, { k: 'assign' }>): Ev {
    const target = n.target;
    const value = this.owned(n.e);
    const op = n.op === '=' ? '' : n.op.slice(0, -1);
    if (target.k === 'var') {
      const ref = this.resolve(target.name);
      if (ref.k === 'slot') {
        if (ref.isConst)
          throw parseError(
            'AssignmentToConstant',
            `Cannot assign to constant '${target.name}'`,
            target.line,
            target.col,
          );
        const slot = ref.slot;
        if (op === '') {
          return (f) => {
            tick(f.c);
            const v = value(f);
            const cur = f.s[slot];
            if (cur instanceof SharedCell) cur.v = v;
            else f.s[slot] = v;
            return undefined;
          };
        }
        return (f) => {
          const c = f.c;
          tick(c);
          const v = value(f);
          const cur = f.s[slot];
          if (cur instanceof SharedCell) cur.v = compound(c, op, cur.v, v);
          else f.s[slot] = compound(c, op, cur, v);
          return undefined;
        };
      }
    }
    const upd = this.updater(target);
    if (op === '') {
      return (f) => {
        tick(f.c);
        const v = value(f);
        upd(f, () => v);
        return undefined;
      };
    }
    return (f) => {
      const c = f.c;
      tick(c);
      const v = value(f);
      upd(f, (old) => compound(c, op, old, v));
      return undefined;
    };
  }

  /** Read-modify-write access to a place (variable, `this`, index or property chain). */
  private updater(n: Node): Updater {
    switch (n.k) {
      case 'var': {
        const ref = this.resolve(n.name);
        const name = n.name;
        if (ref.k === 'slot') {
          const slot = ref.slot;
          if (ref.isConst) {
            return () => {
              throw rtError('ErrorAssignmentToConstant', `Cannot modify constant '${name}'`);
            };
          }
          return (f, fn) => {
            const cur = f.s[slot];
            if (cur instanceof SharedCell) cur.v = fn(cur.v);
            else f.s[slot] = fn(cur);
          };
        }
        if (ref.k === 'ext') {
          return (f, fn) => {
            const m = f.c.externals;
            if (!m.has(name)) throw rtError('ErrorVariableNotFound', `Variable not found: ${name}`);
            const cur = m.get(name);
            if (cur instanceof SharedCell) cur.v = fn(cur.v);
            else m.set(name, fn(cur));
          };
        }
        return (f, fn) => {
          const d = f.dyn;
          const s = d?.names.get(name);
          if (d === undefined || s === undefined)
            throw rtError('ErrorVariableNotFound', `Variable not found: ${name}`);
          const cur = d.frame.s[s];
          if (cur instanceof SharedCell) cur.v = fn(cur.v);
          else d.frame.s[s] = fn(cur);
        };
      }
      case 'this':
        return (f, fn) => {
          if (!f.thisRef) throw rtError('ErrorUnboundThis', "'this' is not bound");
          f.thisRef.v = fn(f.thisRef.v);
        };
      case 'index': {
        const inner = this.updater(n.obj);
        const idx = this.expr(n.idx);
        return (f, fn) => {
          const i = idx(f);
          const c = f.c;
          inner(f, (cont) => setIndex(c, cont, i, fn(getIndex(cont, i))));
        };
      }
      case 'prop': {
        const inner = this.updater(n.obj);
        const name = n.name;
        return (f, fn) => {
          const c = f.c;
          inner(f, (cont) => {
            if (!(cont instanceof Map)) {
              throw rtError(
                'ErrorDotExpr',
                `Cannot set property '${name}' of ${typeOf(cont)}`,
                n.line,
                n.col,
              );
            }
            cont.set(name, own(fn(cont.get(name))));
            checkSize(c, cont);
            return cont;
          });
        };
      }
      default:
        throw parseError('AssignmentToInvalidLHS', 'Invalid assignment target', n.line, n.col);
    }
  }

  /** True when an optional access (`?.`/`?[`) earlier in the chain short-circuits on unit. */
  private chainSafe(n: Node): boolean {
    if (n.k === 'prop' || n.k === 'index' || n.k === 'method') return n.safe || this.chainSafe(n.obj);
    return false;
  }

  private isPlace(n: Node): boolean {
    return (
      n.k === 'var' ||
      n.k === 'this' ||
      ((n.k === 'index' || n.k === 'prop') && !n.safe && this.isPlace(n.obj))
    );
  }

  // ---- expressions ----

  /** Compiles an expression whose value will be stored: containers read from places are copied. */
  private owned(n: Node): Ev {
    const e = this.expr(n);
    if (FRESH.has(n.k) || (n.k === 'binary' && n.op !== '??')) return e;
    return (f) => own(e(f));
  }

  private expr(n: Node): Ev {
    switch (n.k) {
      case 'lit': {
        const v = litValue(n.value);
        return (f) => {
          tick(f.c);
          return v;
        };
      }
      case 'interp': {
        const parts = n.parts.map((p) => this.expr(p));
        return (f) => {
          tick(f.c);
          let s = '';
          for (const p of parts) s += toDisplay(p(f));
          return checkString(f.c, s);
        };
      }
      case 'var':
        return this.varRead(n.name, n.line, n.col);
      case 'global': {
        const name = n.name;
        return (f) => {
          tick(f.c);
          const m = f.c.globalConsts;
          if (!m.has(name))
            throw rtError('ErrorVariableNotFound', `Variable not found: global::${name}`, n.line, n.col);
          return m.get(name);
        };
      }
      case 'this':
        return (f) => {
          tick(f.c);
          if (!f.thisRef) throw rtError('ErrorUnboundThis', "'this' is not bound", n.line, n.col);
          return f.thisRef.v;
        };
      case 'array': {
        const items = n.items.map((x) => this.owned(x));
        return (f) => {
          tick(f.c);
          const a: RValue[] = new Array<RValue>(items.length);
          let nested = false;
          for (let i = 0; i < items.length; i++) {
            const v = items[i]!(f);
            if (typeof v === 'object') nested = true;
            a[i] = v;
          }
          if (nested) checkSize(f.c, a);
          return a;
        };
      }
      case 'map': {
        const keys = n.entries.map(([k]) => k);
        const vals = n.entries.map(([, v]) => this.owned(v));
        return (f) => {
          tick(f.c);
          const m: RMap = new Map();
          let nested = false;
          for (let i = 0; i < keys.length; i++) {
            const v = vals[i]!(f);
            if (typeof v === 'object') nested = true;
            m.set(keys[i]!, v);
          }
          if (nested) checkSize(f.c, m);
          return m;
        };
      }
      case 'unary': {
        const e = this.expr(n.e);
        const op = n.op;
        return (f) => {
          tick(f.c);
          try {
            return unary(op, e(f));
          } catch (err) {
            throw withPos(err, n.line, n.col);
          }
        };
      }
      case 'binary':
        return this.binary(n);
      case 'range': {
        const from = n.from ? this.expr(n.from) : undefined;
        const to = n.to ? this.expr(n.to) : undefined;
        const incl = n.incl;
        return (f) => {
          tick(f.c);
          const a = from ? from(f) : 0;
          const b = to ? to(f) : INT_MAX;
          if (
            (typeof a !== 'number' && typeof a !== 'bigint') ||
            (typeof b !== 'number' && typeof b !== 'bigint')
          ) {
            throw noOperator(incl ? '..=' : '..', a, b);
          }
          return new RRange(a, b, incl && to !== undefined);
        };
      }
      case 'index': {
        const obj = this.expr(n.obj);
        const idx = this.expr(n.idx);
        const safe = this.chainSafe(n);
        return (f) => {
          tick(f.c);
          const o = obj(f);
          if (safe && o === undefined) return undefined;
          try {
            return getIndex(o, idx(f));
          } catch (err) {
            throw withPos(err, n.line, n.col);
          }
        };
      }
      case 'prop':
        return this.prop(n);
      case 'call':
        return this.call(n);
      case 'method':
        return this.method(n);
      case 'closure':
        return this.closure(n.fn);
      case 'if': {
        const cond = this.expr(n.cond);
        const then = this.expr(n.then);
        const els = n.else ? this.expr(n.else) : undefined;
        return (f) => {
          tick(f.c);
          const v = cond(f);
          if (v === true) return then(f);
          if (v !== false)
            throw rtError(
              'ErrorMismatchDataType',
              `Expecting a bool condition, not ${typeOf(v)}`,
              n.line,
              n.col,
            );
          return els ? els(f) : undefined;
        };
      }
      case 'block':
        return this.block(n.body);
      case 'switch':
        return this.switchExpr(n);
      case 'while':
        return this.whileLoop(n);
      case 'do':
        return this.doLoop(n);
      case 'for':
        return this.forLoop(n);
      case 'try':
        return this.tryCatch(n);
      default:
        return this.stmt(n);
    }
  }

  private varRead(name: string, line: number, col: number): Ev {
    const ref = this.resolve(name);
    if (ref.k === 'slot') {
      const slot = ref.slot;
      return (f) => {
        tick(f.c);
        const v = f.s[slot];
        return v instanceof SharedCell ? v.v : v;
      };
    }
    const notFound = (f: Frame): RValue => {
      if (f.c.hasFnNamed(name)) return new FnPtr(name);
      throw rtError('ErrorVariableNotFound', `Variable not found: ${name}`, line, col);
    };
    if (ref.k === 'ext') {
      return (f) => {
        tick(f.c);
        const m = f.c.externals;
        const v = m.get(name);
        if (v === undefined && !m.has(name)) return notFound(f);
        return v instanceof SharedCell ? v.v : v;
      };
    }
    return (f) => {
      tick(f.c);
      const d = f.dyn;
      if (d) {
        const s = d.names.get(name);
        if (s !== undefined) return readSlot(d.frame.s[s]);
        const m = f.c.externals;
        if (m.has(name)) return readSlot(m.get(name));
      }
      return notFound(f);
    };
  }

  private binary(n: Extract<Node, { k: 'binary' }>): Ev {
    const l = this.expr(n.l);
    const r = this.expr(n.r);
    const op = n.op;
    const fail = (err: unknown): never => {
      throw withPos(err, n.line, n.col);
    };
    switch (op) {
      case '&&':
      case '||': {
        const isAnd = op === '&&';
        return (f) => {
          tick(f.c);
          const a = l(f);
          if (typeof a !== 'boolean') return fail(noOperator(op, a, undefined));
          if (a !== isAnd) return a;
          const b = r(f);
          if (typeof b !== 'boolean') return fail(noOperator(op, a, b));
          return b;
        };
      }
      case '??':
        return (f) => {
          tick(f.c);
          const a = l(f);
          return a === undefined ? r(f) : a;
        };
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return (f) => {
          tick(f.c);
          const a = l(f);
          const b = r(f);
          if (typeof a === 'number' && typeof b === 'number') {
            switch (op) {
              case '<':
                return a < b;
              case '<=':
                return a <= b;
              case '>':
                return a > b;
              case '>=':
                return a >= b;
              case '==':
                return a === b;
              default:
                return a !== b;
            }
          }
          return compare(op, a, b);
        };
      case 'in':
      case '!in': {
        const neg = op === '!in';
        return (f) => {
          tick(f.c);
          const a = l(f);
          const b = r(f);
          try {
            return contains(a, b) !== neg;
          } catch (err) {
            return fail(err);
          }
        };
      }
      case '+':
        return (f) => {
          const c = f.c;
          tick(c);
          const a = l(f);
          const b = r(f);
          if (typeof a === 'number' && typeof b === 'number') {
            const x = a + b;
            if (Number.isSafeInteger(x)) return x;
          }
          try {
            return arith(c, op, a, b);
          } catch (err) {
            return fail(err);
          }
        };
      default:
        return (f) => {
          const c = f.c;
          tick(c);
          const a = l(f);
          const b = r(f);
          try {
            return arith(c, op, a, b);
          } catch (err) {
            return fail(err);
          }
        };
    }
  }

  private prop(n: Extract<Node, { k: 'prop' }>): Ev {
    const obj = this.expr(n.obj);
    const name = n.name;
    const safe = this.chainSafe(n);
    const getter = lookupBuiltin(name);
    return (f) => {
      tick(f.c);
      const o = obj(f);
      if (o instanceof Map) return o.get(name);
      if (safe && o === undefined) return undefined;
      if (getter && getter.min <= 1 && getter.max >= 1) {
        try {
          return getter.fn(f.c, [o]);
        } catch (err) {
          throw withPos(err, n.line, n.col);
        }
      }
      throw rtError('ErrorDotExpr', `Unknown property '${name}' of ${typeOf(o)}`, n.line, n.col);
    };
  }

  private args(nodes: Node[]): (f: Frame) => RValue[] {
    const evs = nodes.map((a) => this.owned(a));
    const n = evs.length;
    if (n === 0) return () => [];
    if (n === 1) {
      const a = evs[0]!;
      return (f) => [a(f)];
    }
    return (f) => {
      const out = new Array<RValue>(n);
      for (let i = 0; i < n; i++) out[i] = evs[i]!(f);
      return out;
    };
  }

  private rawArgs(nodes: Node[]): (f: Frame) => RValue[] {
    const evs = nodes.map((a) => this.expr(a));
    return (f) => evs.map((e) => e(f));
  }

  private call(n: Extract<Node, { k: 'call' }>): Ev {
    const { name, line, col } = n;
    const argc = n.args.length;
    const at = (err: unknown): never => {
      throw withPos(err, line, col);
    };
    if (n.ns.length > 0) {
      const full = `${n.ns.join('::')}::${name}`;
      return () => at(rtError('ErrorFunctionNotFound', `Function not found: ${full}`));
    }
    const special = this.specialCall(n);
    if (special) return special;
    const sf = this.fns.get(`${name}/${argc}`);
    if (sf) {
      const args = this.args(n.args);
      if (n.bang) {
        const names = this.visibleNames();
        return (f) => {
          tick(f.c);
          const dyn: DynScope = { frame: f, names };
          try {
            return callScript(f.c, sf, undefined, args(f), dyn);
          } catch (err) {
            return at(err);
          }
        };
      }
      return (f) => {
        tick(f.c);
        const argv = args(f);
        try {
          return callScript(f.c, sf, undefined, argv);
        } catch (err) {
          return at(err);
        }
      };
    }
    const b = lookupBuiltin(name);
    if (b && argc >= b.min && argc <= b.max) {
      const args = this.rawArgs(n.args);
      const first = n.args[0];
      const setBack = first && first.k === 'var' ? this.setter(first) : undefined;
      const fn = b.fn;
      return (f) => {
        const c = f.c;
        tick(c);
        const argv = args(f);
        const orig = argv[0];
        try {
          const r = fn(c, argv);
          if (setBack && argv[0] !== orig) setBack(f, argv[0]);
          return checkResult(c, r);
        } catch (err) {
          return at(err);
        }
      };
    }
    // A variable holding a function pointer can be called like a function.
    const ptr = this.isVisible(name) || this.scope.kind !== 'fn' ? this.varRead(name, line, col) : undefined;
    const args = this.args(n.args);
    return (f) => {
      tick(f.c);
      const argv = args(f);
      try {
        const p = ptr ? ptr(f) : undefined;
        if (p instanceof FnPtr) return callFnPtr(f.c, p, undefined, argv);
      } catch (err) {
        if (!(err instanceof RhaiError && err.kind === 'ErrorVariableNotFound')) return at(err);
      }
      return at(
        rtError('ErrorFunctionNotFound', `Function not found: ${name} (${argv.map(typeOf).join(', ')})`),
      );
    };
  }

  private specialCall(n: Extract<Node, { k: 'call' }>): Ev | undefined {
    const { name, line, col } = n;
    const argc = n.args.length;
    const at = (err: unknown): never => {
      throw withPos(err, line, col);
    };
    if (name === 'is_def_var' && argc === 1) {
      const a = n.args[0]!;
      const known = a.k === 'lit' && a.value.t === 'str' && this.isVisible(a.value.v);
      const arg = this.expr(a);
      return (f) => {
        tick(f.c);
        if (known) return true;
        const v = arg(f);
        return typeof v === 'string' && (f.c.externals.has(v) || (f.dyn?.names.has(v) ?? false));
      };
    }
    if (name === 'is_shared' && argc === 1) {
      const a = n.args[0]!;
      if (a.k !== 'var') return () => false;
      const ref = this.resolve(a.name);
      return (f) => {
        tick(f.c);
        if (ref.k === 'slot') return f.s[ref.slot] instanceof SharedCell;
        if (ref.k === 'ext') return f.c.externals.get(a.name) instanceof SharedCell;
        return false;
      };
    }
    if (name === 'is_def_fn' && (argc === 1 || argc === 2)) {
      const args = this.rawArgs(n.args);
      return (f) => {
        tick(f.c);
        const [nm, ar] = args(f);
        if (typeof nm !== 'string') return false;
        if (argc === 1) return f.c.hasFnNamed(nm);
        return typeof ar === 'number' && f.c.scriptFn(nm, ar) !== undefined;
      };
    }
    if ((name === 'call' || name === 'curry') && argc >= 1 && !this.fns.has(`${name}/${argc}`)) {
      const args = this.args(n.args);
      const isCall = name === 'call';
      const names = n.bang ? this.visibleNames() : undefined;
      return (f) => {
        tick(f.c);
        const argv = args(f);
        try {
          const fp = asFnPtr(argv[0]);
          const dyn: DynScope | undefined = names ? { frame: f, names } : undefined;
          return isCall ? callFnPtr(f.c, fp, undefined, argv.slice(1), dyn) : fp.withCurried(argv.slice(1));
        } catch (err) {
          return at(err);
        }
      };
    }
    return undefined;
  }

  private setter(n: Node): ((f: Frame, v: RValue) => void) | undefined {
    if (!this.isPlace(n)) return undefined;
    const upd = this.updater(n);
    return (f, v) => upd(f, () => v);
  }

  private method(n: Extract<Node, { k: 'method' }>): Ev {
    const { name, line, col } = n;
    const safe = this.chainSafe(n);
    const argc = n.args.length;
    const obj = this.expr(n.obj);
    const setBack = this.setter(n.obj);
    const sharedSlot = n.obj.k === 'var' ? this.resolve(n.obj.name) : undefined;
    const at = (err: unknown): never => {
      throw withPos(err, line, col);
    };
    const sf = this.fns.get(`${name}/${argc}`);
    const b = lookupBuiltin(name);
    const args = sf ? this.args(n.args) : this.rawArgs(n.args);
    const ownedArgs = sf ? args : this.args(n.args);
    return (f) => {
      const c = f.c;
      tick(c);
      const recv = obj(f);
      if (safe && recv === undefined) return undefined;
      try {
        if (sf) {
          const ref: ThisRef = { v: recv };
          const r = callScript(c, sf, ref, args(f));
          if (ref.v !== recv && setBack) setBack(f, ref.v);
          return r;
        }
        if (name === 'call' || name === 'curry') {
          if (recv instanceof FnPtr) {
            const argv = ownedArgs(f);
            return name === 'call' ? callFnPtr(c, recv, undefined, argv) : recv.withCurried(argv);
          }
          if (name === 'call' && argc >= 1) {
            const argv = ownedArgs(f);
            const fp = asFnPtr(argv[0]);
            if (sharedSlot?.k === 'slot' && fp.closure) {
              const cell = f.s[sharedSlot.slot];
              if (cell instanceof SharedCell && fp.closure.cells.includes(cell)) {
                throw rtError(
                  'ErrorDataRace',
                  'Data race: the object of the call is captured by the closure',
                );
              }
            }
            const ref: ThisRef = { v: recv };
            const r = callFnPtr(c, fp, ref, argv.slice(1));
            if (ref.v !== recv && setBack) setBack(f, ref.v);
            return r;
          }
        }
        if (b && argc + 1 >= b.min && argc + 1 <= b.max) {
          const argv = args(f);
          argv.unshift(recv);
          const r = b.fn(c, argv);
          if (argv[0] !== recv && setBack) setBack(f, argv[0]);
          return checkResult(c, r);
        }
        if (recv instanceof Map) {
          const fp = recv.get(name);
          if (fp instanceof FnPtr) {
            const ref: ThisRef = { v: recv };
            return callFnPtr(c, fp, ref, ownedArgs(f));
          }
        }
        const argv = args(f);
        throw rtError(
          'ErrorFunctionNotFound',
          `Function not found: ${name} (${[recv, ...argv].map(typeOf).join(', ')})`,
        );
      } catch (err) {
        return at(err);
      }
    };
  }

  private closure(def: FnDef): Ev {
    const scope = new FnScope('closure', this.scope);
    const saved = [this.scope, this.blockDepth] as const;
    this.scope = scope;
    this.blockDepth = 1;
    for (const p of def.params) scope.declare(p, false);
    const body = this.stmt(def.body);
    [this.scope, this.blockDepth] = saved;
    const params = def.params.length;
    const captures = scope.captures;
    const id = `anon$${this.closureId++}`;
    return (f) => {
      const c = f.c;
      tick(c);
      const cells: SharedCell[] = captures.map((cap) => cellOf(f, cap.from, cap.name));
      const nslots = scope.nslots;
      const closure: ClosureValue = {
        params,
        cells,
        invoke: (thisRef, args) => {
          if (c.level >= c.limits.maxCallLevels)
            throw rtError('ErrorStackOverflow', 'Stack overflow calling a closure');
          tick(c);
          const slots: Slot[] = new Array<Slot>(nslots);
          for (let i = 0; i < args.length; i++) slots[i] = args[i];
          for (let i = 0; i < captures.length; i++) slots[captures[i]!.slot] = cells[i];
          c.level++;
          try {
            let r = body(new Frame(c, slots, thisRef, undefined));
            if (c.ctl === CTL_RETURN) {
              r = c.ctlValue;
              c.ctlValue = undefined;
            }
            c.ctl = CTL_NONE;
            return own(r);
          } catch (err) {
            throw wrapFnError(err, id);
          } finally {
            c.level--;
          }
        },
      };
      return new FnPtr(id, [], closure);
    };
  }

  private loopResult(f: Frame): { stop: boolean; value: RValue } | undefined {
    const c = f.c;
    if (c.ctl === CTL_NONE) return undefined;
    if (c.ctl === CTL_CONTINUE) {
      c.ctl = CTL_NONE;
      return undefined;
    }
    if (c.ctl === CTL_BREAK) {
      c.ctl = CTL_NONE;
      const value = c.ctlValue;
      c.ctlValue = undefined;
      return { stop: true, value };
    }
    return { stop: true, value: undefined };
  }

  private whileLoop(n: Extract<Node, { k: 'while' }>): Ev {
    const cond = n.cond ? this.expr(n.cond) : undefined;
    const body = this.expr(n.body);
    return (f) => {
      const c = f.c;
      for (;;) {
        tick(c);
        if (cond) {
          const v = cond(f);
          if (v === false) return undefined;
          if (v !== true)
            throw rtError(
              'ErrorMismatchDataType',
              `Expecting a bool condition, not ${typeOf(v)}`,
              n.line,
              n.col,
            );
        }
        body(f);
        if (c.ctl !== CTL_NONE) {
          const r = this.loopResult(f);
          if (r) return r.value;
        }
      }
    };
  }

  private doLoop(n: Extract<Node, { k: 'do' }>): Ev {
    const cond = this.expr(n.cond);
    const body = this.expr(n.body);
    const until = n.until;
    return (f) => {
      const c = f.c;
      for (;;) {
        tick(c);
        body(f);
        if (c.ctl !== CTL_NONE) {
          const r = this.loopResult(f);
          if (r) return r.value;
        }
        const v = cond(f);
        if (typeof v !== 'boolean')
          throw rtError(
            'ErrorMismatchDataType',
            `Expecting a bool condition, not ${typeOf(v)}`,
            n.line,
            n.col,
          );
        if (v === until) return undefined;
      }
    };
  }

  private forLoop(n: Extract<Node, { k: 'for' }>): Ev {
    const iter = this.owned(n.iter);
    const mark = this.scope.vars.length;
    this.blockDepth++;
    const slot = this.scope.declare(n.name, false).slot;
    const counter = n.counter !== undefined ? this.scope.declare(n.counter, false).slot : -1;
    const body = this.expr(n.body);
    this.blockDepth--;
    this.scope.vars.length = mark;
    return (f) => {
      const c = f.c;
      tick(c);
      const src = iter(f);
      let i = 0;
      const step = (v: RValue): { stop: boolean; value: RValue } | undefined => {
        tick(c);
        f.s[slot] = v;
        if (counter >= 0) f.s[counter] = i;
        i++;
        body(f);
        return c.ctl !== CTL_NONE ? this.loopResult(f) : undefined;
      };
      if (src instanceof RRange) {
        if (typeof src.from === 'number' && typeof src.to === 'number' && typeof src.step === 'number') {
          const s = src.step;
          if (s === 0) throw rtError('ErrorArithmetic', 'Step value cannot be zero', n.line, n.col);
          const end = src.incl ? src.to + (s > 0 ? 1 : -1) : src.to;
          for (let x = src.from; s > 0 ? x < end : x > end; x += s) {
            const r = step(x);
            if (r) return r.value;
          }
          return undefined;
        }
        const s = BigInt(src.step);
        const end = BigInt(src.to);
        for (let x = BigInt(src.from); s > 0n ? (src.incl ? x <= end : x < end) : x > end; x += s) {
          const num = Number(x);
          const r = step(Number.isSafeInteger(num) ? num : x);
          if (r) return r.value;
        }
        return undefined;
      }
      if (src instanceof RFloatRange) {
        if (src.step === 0) throw rtError('ErrorArithmetic', 'Step value cannot be zero', n.line, n.col);
        for (let x = src.from; src.step > 0 ? x < src.to : x > src.to; x += src.step) {
          const r = step(new RFloat(x));
          if (r) return r.value;
        }
        return undefined;
      }
      let items: readonly RValue[];
      if (Array.isArray(src)) items = src;
      else if (typeof src === 'string') items = chars(src).map((ch) => new RChar(ch));
      else if (src instanceof RBlob) items = Array.from(src.bytes);
      else throw rtError('ErrorFor', `Cannot iterate over ${typeOf(src)}`, n.line, n.col);
      for (const x of items) {
        const r = step(x);
        if (r) return r.value;
      }
      return undefined;
    };
  }

  private switchExpr(n: Extract<Node, { k: 'switch' }>): Ev {
    const subject = this.expr(n.subject);
    const cases = n.cases.map((cs) => ({
      values: cs.values.map(litValue),
      ranges: cs.ranges,
      cond: cs.cond ? this.expr(cs.cond) : undefined,
      body: this.expr(cs.body),
    }));
    const def = n.def ? this.expr(n.def) : undefined;
    return (f) => {
      tick(f.c);
      const v = subject(f);
      const t = typeOf(v);
      for (const cs of cases) {
        let hit = cs.values.some((x) => typeOf(x) === t && valuesEqual(x, v));
        if (!hit && (typeof v === 'number' || typeof v === 'bigint')) {
          hit = cs.ranges.some((r) => v >= r.from && (r.incl ? v <= r.to : v < r.to));
        }
        if (hit && (!cs.cond || cs.cond(f) === true)) return cs.body(f);
      }
      return def ? def(f) : undefined;
    };
  }

  private tryCatch(n: Extract<Node, { k: 'try' }>): Ev {
    const body = this.expr(n.body);
    const mark = this.scope.vars.length;
    const errSlot = n.errVar !== undefined ? this.scope.declare(n.errVar, false).slot : -1;
    this.blockDepth++;
    const handler = this.expr(n.handler);
    this.blockDepth--;
    this.scope.vars.length = mark;
    return (f) => {
      const c = f.c;
      tick(c);
      const level = c.level;
      try {
        return body(f);
      } catch (err) {
        const e = err instanceof RangeError ? new RhaiError('ErrorStackOverflow', 'Stack overflow') : err;
        if (!(e instanceof RhaiError) || !isCatchable(e)) throw e;
        c.level = level;
        c.ctl = CTL_NONE;
        if (errSlot >= 0) f.s[errSlot] = errorValue(e);
        const prev = c.caught;
        c.caught = e;
        try {
          return handler(f);
        } finally {
          c.caught = prev;
        }
      }
    };
  }
}

function isCatchable(e: RhaiError): boolean {
  const k = rootError(e).kind;
  return !(
    k === 'ErrorTooManyOperations' ||
    k === 'ErrorStackOverflow' ||
    k === 'ErrorDataTooLarge' ||
    k === 'ErrorTerminated' ||
    k === 'ErrorParsing'
  );
}

/** The value a `catch (err)` variable receives: the thrown value, or a map describing the error. */
function errorValue(e: RhaiError): RValue {
  const root = rootError(e);
  if (root.kind === 'ErrorRuntime') return root.thrown as RValue;
  const m: RMap = new Map();
  m.set('message', root.message);
  if (root.line > 0) {
    m.set('line', root.line);
    m.set('position', root.column);
  }
  return m;
}

function cellOf(f: Frame, from: Ref, name: string): SharedCell {
  if (from.k === 'slot') {
    const v = f.s[from.slot];
    if (v instanceof SharedCell && v !== UNBOUND) return v;
    const cell = new SharedCell(v instanceof SharedCell ? undefined : v);
    f.s[from.slot] = cell;
    return cell;
  }
  if (from.k === 'ext') {
    const m = f.c.externals;
    const v = m.get(name);
    if (v instanceof SharedCell) return v;
    const cell = new SharedCell(v);
    if (m.has(name)) m.set(name, cell);
    return cell;
  }
  return new SharedCell(undefined);
}

/** `a op= b`: arrays and maps grow in place, everything else as the binary operator. */
function compound(c: Frame['c'], op: string, a: RValue, b: RValue): RValue {
  if (op === '+') {
    if (typeof a === 'number' && typeof b === 'number') {
      const x = a + b;
      if (Number.isSafeInteger(x)) return x;
    } else if (typeof a === 'string' && typeof b === 'string') {
      return checkString(c, a + b);
    } else if (Array.isArray(a)) {
      if (Array.isArray(b)) for (const x of b) a.push(own(x));
      else a.push(own(b));
      checkSize(c, a);
      return a;
    } else if (a instanceof Map && b instanceof Map) {
      for (const [k, v] of b) a.set(k, own(v));
      checkSize(c, a);
      return a;
    } else if (a instanceof RBlob && typeof b === 'number') {
      const r = new Uint8Array(a.bytes.length + 1);
      r.set(a.bytes);
      r[a.bytes.length] = b & 0xff;
      return new RBlob(r);
    }
  }
  return arith(c, op, a, b);
}
