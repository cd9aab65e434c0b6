import type { FunctionDefinition, LiteralValue, Node, Script } from './ast.js';
import { parseError, RhaiError } from './errors.js';
import { getIndex, setIndex } from './indexing.js';
import {
  binaryOperation,
  asFunctionPointer,
  blobAppendix,
  compare,
  contains,
  noOperator,
  unary,
} from './operators.js';
import type { DynamicScope, Evaluator, ScriptFunction, Slot } from './evaluation-context.js';
import { Frame } from './evaluation-context.js';
import {
  callFunctionPointer,
  callScript,
  checkResult,
  checkSize,
  checkString,
  readSlot,
  rootError,
  runtimeError,
  countOperation,
  withPosition,
  wrapFunctionError,
} from './runtime.js';
import { lookupBuiltin } from './stdlib/registry.js';
import type { ClosureValue, RhaiMap, RhaiValue, ThisReference } from './values.js';
import {
  chars,
  FunctionPointer,
  ownedValue,
  RhaiBlob,
  RhaiChar,
  RhaiFloat,
  RhaiFloatRange,
  RhaiRange,
  SharedCell,
  toDisplay,
  typeOf,
  valuesEqual,
} from './values.js';

/** Marks top-level slots whose `let` has not run yet (never read as a value). */
export const unboundSlot: SharedCell = Object.freeze(new SharedCell(undefined));

/** A compiled script, ready to run any number of times. */
export interface CompiledScript {
  body: Evaluator;
  slotCount: number;
  /** Top-level variables in declaration order (a later one shadows an earlier one of the same name). */
  topVars: { name: string; slot: number }[];
  functions: Map<string, ScriptFunction>;
}

type VariableReference =
  { kind: 'slot'; slot: number; isConst: boolean } | { kind: 'external' } | { kind: 'dynamic' };
type Updater = (frame: Frame, fn: (old: RhaiValue) => RhaiValue) => void;

interface VarInfo {
  name: string;
  slot: number;
  isConst: boolean;
  /** Declared again in the block that declared it: Rhai reuses the entry, the scope does not grow. */
  redeclared?: boolean;
}

class FunctionScope {
  vars: VarInfo[] = [];
  slotCount = 0;
  readonly captured = new Map<string, VarInfo>();
  readonly captures: { slot: number; from: VariableReference; name: string }[] = [];
  constructor(
    readonly kind: 'top' | 'fn' | 'closure',
    readonly parent: FunctionScope | undefined,
  ) {}

  declare(name: string, isConst: boolean, redeclared = false): VarInfo {
    const v = { name, slot: this.slotCount++, isConst, redeclared };
    this.vars.push(v);
    return v;
  }

  /** Variables Rhai's scope holds at this point (a redeclaration in the same block is not one more). */
  liveCount(): number {
    let n = 0;
    for (const v of this.vars) if (!v.redeclared) n++;
    return n;
  }

  find(name: string): VarInfo | undefined {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i];
    return this.captured.get(name);
  }
}

const INT_MAX = (1n << 63n) - 1n;

/** Turns a literal into a run-time value. */
export function literalValue(v: LiteralValue): RhaiValue {
  switch (v.type) {
    case 'int':
    case 'str':
    case 'bool':
      return v.value;
    case 'float':
      return new RhaiFloat(v.value);
    case 'char':
      return new RhaiChar(v.value);
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
  private scope = new FunctionScope('top', undefined);
  private blockDepth = 0;
  /** Index in `scope.vars` where the innermost block's variables start. */
  private blockStart = 0;
  private readonly topVars: { name: string; slot: number }[] = [];
  private readonly functions = new Map<string, ScriptFunction>();
  private closureId = 0;

  constructor(private readonly script: Script) {}

  compile(): CompiledScript {
    for (const d of this.script.functions) {
      this.functions.set(`${d.name}/${d.params.length}`, {
        name: d.name,
        arity: d.params.length,
        slotCount: 0,
        body: () => undefined,
      });
    }
    for (const d of this.script.functions) {
      const fn = this.functions.get(`${d.name}/${d.params.length}`)!;
      const saved = [this.scope, this.blockDepth] as const;
      this.scope = new FunctionScope('fn', undefined);
      this.blockDepth = 1;
      for (const p of d.params) this.scope.declare(p, false);
      fn.body = this.statement(d.body);
      fn.slotCount = this.scope.slotCount;
      [this.scope, this.blockDepth] = saved;
    }
    const body = this.sequence(this.script.body);
    return { body, slotCount: this.scope.slotCount, topVars: this.topVars, functions: this.functions };
  }

  // ---- scopes ----

  private resolve(name: string, scope: FunctionScope = this.scope): VariableReference {
    const v = scope.find(name);
    if (v) return { kind: 'slot', slot: v.slot, isConst: v.isConst };
    if (scope.kind === 'top') return { kind: 'external' };
    if (scope.kind === 'fn') return { kind: 'dynamic' };
    const outer = this.resolve(name, scope.parent);
    if (outer.kind === 'dynamic') return outer;
    const isConst = outer.kind === 'slot' && outer.isConst;
    const info = { name, slot: scope.slotCount++, isConst };
    scope.captured.set(name, info);
    scope.captures.push({ slot: info.slot, from: outer, name });
    return { kind: 'slot', slot: info.slot, isConst };
  }

  private isVisible(name: string): boolean {
    for (let s: FunctionScope | undefined = this.scope; s; s = s.kind === 'closure' ? s.parent : undefined) {
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

  private sequence(nodes: Node[]): Evaluator {
    const evs = nodes.map((n) => this.statement(n));
    const lines = nodes.map((n) => n.line);
    const cols = nodes.map((n) => n.col);
    const n = evs.length;
    if (n === 0) return () => undefined;
    if (n === 1) {
      const e = evs[0]!;
      const line = lines[0]!;
      const col = cols[0]!;
      return (frame) => {
        try {
          return e(frame);
        } catch (err) {
          throw withPosition(err, line, col);
        }
      };
    }
    return (frame) => {
      const context = frame.context;
      let r: RhaiValue;
      let i = 0;
      try {
        for (; i < n; i++) {
          r = evs[i]!(frame);
          if (context.control !== 'none') return r;
        }
      } catch (err) {
        throw withPosition(err, lines[i]!, cols[i]!);
      }
      return r;
    };
  }

  private block(nodes: Node[]): Evaluator {
    const mark = this.scope.vars.length;
    const outerStart = this.blockStart;
    this.blockStart = mark;
    this.blockDepth++;
    const ev = this.sequence(nodes);
    this.blockDepth--;
    this.blockStart = outerStart;
    this.scope.vars.length = mark;
    return ev;
  }

  private statement(n: Node): Evaluator {
    switch (n.kind) {
      case 'let':
        return this.letStatement(n);
      case 'assign':
        return this.assign(n);
      case 'return':
      case 'break': {
        const e = n.operand ? this.owned(n.operand) : undefined;
        const signal = n.kind === 'return' ? 'return' : 'break';
        return (frame) => {
          const context = frame.context;
          countOperation(context);
          const v = e ? e(frame) : undefined;
          context.control = signal;
          context.controlValue = v;
          return v;
        };
      }
      case 'continue':
        return (frame) => {
          countOperation(frame.context);
          frame.context.control = 'continue';
          return undefined;
        };
      case 'throw': {
        const e = n.operand ? this.owned(n.operand) : undefined;
        return (frame) => {
          const context = frame.context;
          countOperation(context);
          if (!e && context.caught) throw context.caught;
          const v = e ? e(frame) : undefined;
          throw new RhaiError('ErrorRuntime', toDisplay(v), n.line, n.col, { thrown: v });
        };
      }
      case 'import':
        return () => {
          throw runtimeError('ErrorModuleNotFound', 'Modules are not available', n.line, n.col);
        };
      case 'nop':
        return () => undefined;
      default: {
        const e = this.expression(n);
        return (frame) => {
          countOperation(frame.context);
          return e(frame);
        };
      }
    }
  }

  private letStatement(n: Extract<Node, { kind: 'let' }>): Evaluator {
    const init = n.operand ? this.owned(n.operand) : undefined;
    const redeclared = this.scope.vars.slice(this.blockStart).some((x) => x.name === n.name);
    // A redeclaration reuses its entry, so only a new variable can exceed the limit.
    const live = this.scope.liveCount();
    const more = redeclared ? 0 : 1;
    const topLevel = this.scope.kind === 'top';
    const v = this.scope.declare(n.name, n.isConst, redeclared);
    const slot = v.slot;
    const top = this.scope.kind === 'top' && this.blockDepth === 0;
    if (top) this.topVars.push({ name: n.name, slot });
    if (top && n.isConst) {
      const name = n.name;
      return (frame) => {
        countOperation(frame.context);
        frame.context.checkVariables(live, more, topLevel);
        const x = init ? init(frame) : undefined;
        frame.slots[slot] = x;
        frame.context.globalConstants.set(name, x);
        return undefined;
      };
    }
    if (!init) {
      return (frame) => {
        countOperation(frame.context);
        frame.context.checkVariables(live, more, topLevel);
        frame.slots[slot] = undefined;
        return undefined;
      };
    }
    return (frame) => {
      countOperation(frame.context);
      frame.context.checkVariables(live, more, topLevel);
      frame.slots[slot] = init(frame);
      return undefined;
    };
  }

  private assign(n: Extract<Node, { kind: 'assign' }>): Evaluator {
    const target = n.target;
    const value = this.owned(n.operand);
    const op = n.op === '=' ? '' : n.op.slice(0, -1);
    if (target.kind === 'var') {
      const ref = this.resolve(target.name);
      if (ref.kind === 'slot') {
        if (ref.isConst)
          throw parseError(
            'AssignmentToConstant',
            `Cannot assign to constant '${target.name}'`,
            target.line,
            target.col,
          );
        const slot = ref.slot;
        if (op === '') {
          return (frame) => {
            countOperation(frame.context);
            const v = value(frame);
            const cur = frame.slots[slot];
            if (cur instanceof SharedCell) cur.value = v;
            else frame.slots[slot] = v;
            return undefined;
          };
        }
        return (frame) => {
          const context = frame.context;
          countOperation(context);
          const v = value(frame);
          const cur = frame.slots[slot];
          if (cur instanceof SharedCell) cur.value = compound(context, op, cur.value, v);
          else frame.slots[slot] = compound(context, op, cur, v);
          return undefined;
        };
      }
    }
    const upd = this.updater(target);
    if (op === '') {
      return (frame) => {
        countOperation(frame.context);
        const v = value(frame);
        upd(frame, () => v);
        return undefined;
      };
    }
    return (frame) => {
      const context = frame.context;
      countOperation(context);
      const v = value(frame);
      upd(frame, (old) => compound(context, op, old, v));
      return undefined;
    };
  }

  /** Read-modify-write access to a place (variable, `this`, index or property chain). */
  private updater(n: Node): Updater {
    switch (n.kind) {
      case 'var': {
        const ref = this.resolve(n.name);
        const name = n.name;
        if (ref.kind === 'slot') {
          const slot = ref.slot;
          if (ref.isConst) {
            return () => {
              throw runtimeError('ErrorAssignmentToConstant', `Cannot modify constant '${name}'`);
            };
          }
          return (frame, fn) => {
            const cur = frame.slots[slot];
            if (cur instanceof SharedCell) cur.value = fn(cur.value);
            else frame.slots[slot] = fn(cur);
          };
        }
        if (ref.kind === 'external') {
          return (frame, fn) => {
            const m = frame.context.externals;
            if (!m.has(name)) throw runtimeError('ErrorVariableNotFound', `Variable not found: ${name}`);
            const cur = m.get(name);
            if (cur instanceof SharedCell) cur.value = fn(cur.value);
            else m.set(name, fn(cur));
          };
        }
        return (frame, fn) => {
          const d = frame.dynamicScope;
          const s = d?.names.get(name);
          if (d === undefined || s === undefined)
            throw runtimeError('ErrorVariableNotFound', `Variable not found: ${name}`);
          const cur = d.frame.slots[s];
          if (cur instanceof SharedCell) cur.value = fn(cur.value);
          else d.frame.slots[s] = fn(cur);
        };
      }
      case 'this':
        return (frame, fn) => {
          if (!frame.thisRef) throw runtimeError('ErrorUnboundThis', "'this' is not bound");
          frame.thisRef.value = fn(frame.thisRef.value);
        };
      case 'index': {
        const inner = this.updater(n.target);
        const idx = this.expression(n.index);
        return (frame, fn) => {
          const i = idx(frame);
          const context = frame.context;
          inner(frame, (cont) => setIndex(context, cont, i, fn(getIndex(cont, i))));
        };
      }
      case 'prop': {
        const inner = this.updater(n.target);
        const name = n.name;
        return (frame, fn) => {
          const context = frame.context;
          inner(frame, (cont) => {
            if (!(cont instanceof Map)) {
              throw runtimeError(
                'ErrorDotExpr',
                `Cannot set property '${name}' of ${typeOf(cont)}`,
                n.line,
                n.col,
              );
            }
            cont.set(name, ownedValue(fn(cont.get(name))));
            checkSize(context, cont);
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
    if (n.kind === 'prop' || n.kind === 'index' || n.kind === 'method')
      return n.safe || this.chainSafe(n.target);
    return false;
  }

  private isPlace(n: Node): boolean {
    return (
      n.kind === 'var' ||
      n.kind === 'this' ||
      ((n.kind === 'index' || n.kind === 'prop') && !n.safe && this.isPlace(n.target))
    );
  }

  // ---- expressions ----

  /** Compiles an expression whose value will be stored: containers read from places are copied. */
  private owned(n: Node): Evaluator {
    const e = this.expression(n);
    if (FRESH.has(n.kind) || (n.kind === 'binary' && n.op !== '??')) return e;
    return (frame) => ownedValue(e(frame));
  }

  private expression(n: Node): Evaluator {
    switch (n.kind) {
      case 'lit': {
        const v = literalValue(n.value);
        return (frame) => {
          countOperation(frame.context);
          return v;
        };
      }
      case 'interp': {
        const parts = n.parts.map((p) => this.expression(p));
        return (frame) => {
          countOperation(frame.context);
          let s = '';
          for (const p of parts) s += toDisplay(p(frame));
          return checkString(frame.context, s);
        };
      }
      case 'var':
        return this.varRead(n.name, n.line, n.col);
      case 'global': {
        const name = n.name;
        return (frame) => {
          countOperation(frame.context);
          const m = frame.context.globalConstants;
          if (!m.has(name))
            throw runtimeError('ErrorVariableNotFound', `Variable not found: global::${name}`, n.line, n.col);
          return m.get(name);
        };
      }
      case 'this':
        return (frame) => {
          countOperation(frame.context);
          if (!frame.thisRef) throw runtimeError('ErrorUnboundThis', "'this' is not bound", n.line, n.col);
          return frame.thisRef.value;
        };
      case 'array': {
        const items = n.items.map((x) => this.owned(x));
        return (frame) => {
          countOperation(frame.context);
          const a: RhaiValue[] = new Array<RhaiValue>(items.length);
          let nested = false;
          for (let i = 0; i < items.length; i++) {
            const v = items[i]!(frame);
            if (typeof v === 'object') nested = true;
            a[i] = v;
          }
          if (nested) checkSize(frame.context, a);
          return a;
        };
      }
      case 'map': {
        const keys = n.entries.map(([k]) => k);
        const vals = n.entries.map(([, v]) => this.owned(v));
        return (frame) => {
          countOperation(frame.context);
          const m: RhaiMap = new Map();
          let nested = false;
          for (let i = 0; i < keys.length; i++) {
            const v = vals[i]!(frame);
            if (typeof v === 'object') nested = true;
            m.set(keys[i]!, v);
          }
          if (nested) checkSize(frame.context, m);
          return m;
        };
      }
      case 'unary': {
        const e = this.expression(n.operand);
        const op = n.op;
        return (frame) => {
          countOperation(frame.context);
          try {
            return unary(op, e(frame));
          } catch (err) {
            throw withPosition(err, n.line, n.col);
          }
        };
      }
      case 'binary':
        return this.binary(n);
      case 'range': {
        const from = n.from ? this.expression(n.from) : undefined;
        const to = n.to ? this.expression(n.to) : undefined;
        const incl = n.inclusive;
        return (frame) => {
          countOperation(frame.context);
          const a = from ? from(frame) : 0;
          const b = to ? to(frame) : INT_MAX;
          if (
            (typeof a !== 'number' && typeof a !== 'bigint') ||
            (typeof b !== 'number' && typeof b !== 'bigint')
          ) {
            throw noOperator(incl ? '..=' : '..', a, b);
          }
          return new RhaiRange(a, b, incl && to !== undefined);
        };
      }
      case 'index': {
        const obj = this.expression(n.target);
        const idx = this.expression(n.index);
        const safe = this.chainSafe(n);
        return (frame) => {
          countOperation(frame.context);
          const o = obj(frame);
          if (safe && o === undefined) return undefined;
          try {
            return getIndex(o, idx(frame));
          } catch (err) {
            throw withPosition(err, n.line, n.col);
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
        const cond = this.expression(n.condition);
        const then = this.expression(n.then);
        const els = n.else ? this.expression(n.else) : undefined;
        return (frame) => {
          countOperation(frame.context);
          const v = cond(frame);
          if (v === true) return then(frame);
          if (v !== false)
            throw runtimeError(
              'ErrorMismatchDataType',
              `Expecting a bool condition, not ${typeOf(v)}`,
              n.line,
              n.col,
            );
          return els ? els(frame) : undefined;
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
        return this.statement(n);
    }
  }

  private varRead(name: string, line: number, col: number): Evaluator {
    const ref = this.resolve(name);
    if (ref.kind === 'slot') {
      const slot = ref.slot;
      return (frame) => {
        countOperation(frame.context);
        const v = frame.slots[slot];
        return v instanceof SharedCell ? v.value : v;
      };
    }
    const notFound = (frame: Frame): RhaiValue => {
      if (frame.context.hasFunctionNamed(name)) return new FunctionPointer(name);
      throw runtimeError('ErrorVariableNotFound', `Variable not found: ${name}`, line, col);
    };
    if (ref.kind === 'external') {
      return (frame) => {
        countOperation(frame.context);
        const m = frame.context.externals;
        const v = m.get(name);
        if (v === undefined && !m.has(name)) return notFound(frame);
        return v instanceof SharedCell ? v.value : v;
      };
    }
    return (frame) => {
      countOperation(frame.context);
      const d = frame.dynamicScope;
      if (d) {
        const s = d.names.get(name);
        if (s !== undefined) return readSlot(d.frame.slots[s]);
        const m = frame.context.externals;
        if (m.has(name)) return readSlot(m.get(name));
      }
      return notFound(frame);
    };
  }

  private binary(n: Extract<Node, { kind: 'binary' }>): Evaluator {
    const l = this.expression(n.left);
    const r = this.expression(n.right);
    const op = n.op;
    const fail = (err: unknown): never => {
      throw withPosition(err, n.line, n.col);
    };
    switch (op) {
      case '&&':
      case '||': {
        const isAnd = op === '&&';
        return (frame) => {
          countOperation(frame.context);
          const a = l(frame);
          if (typeof a !== 'boolean') return fail(noOperator(op, a, undefined));
          if (a !== isAnd) return a;
          const b = r(frame);
          if (typeof b !== 'boolean') return fail(noOperator(op, a, b));
          return b;
        };
      }
      case '??':
        return (frame) => {
          countOperation(frame.context);
          const a = l(frame);
          return a === undefined ? r(frame) : a;
        };
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return (frame) => {
          countOperation(frame.context);
          const a = l(frame);
          const b = r(frame);
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
        return (frame) => {
          countOperation(frame.context);
          const a = l(frame);
          const b = r(frame);
          try {
            return contains(a, b) !== neg;
          } catch (err) {
            return fail(err);
          }
        };
      }
      case '+':
        return (frame) => {
          const context = frame.context;
          countOperation(context);
          const a = l(frame);
          const b = r(frame);
          if (typeof a === 'number' && typeof b === 'number') {
            const x = a + b;
            if (Number.isSafeInteger(x)) return x;
          }
          try {
            return binaryOperation(context, op, a, b);
          } catch (err) {
            return fail(err);
          }
        };
      default:
        return (frame) => {
          const context = frame.context;
          countOperation(context);
          const a = l(frame);
          const b = r(frame);
          try {
            return binaryOperation(context, op, a, b);
          } catch (err) {
            return fail(err);
          }
        };
    }
  }

  private prop(n: Extract<Node, { kind: 'prop' }>): Evaluator {
    const obj = this.expression(n.target);
    const name = n.name;
    const safe = this.chainSafe(n);
    const getter = lookupBuiltin(name);
    return (frame) => {
      countOperation(frame.context);
      const o = obj(frame);
      if (o instanceof Map) return o.get(name);
      if (safe && o === undefined) return undefined;
      if (getter && getter.min <= 1 && getter.max >= 1) {
        try {
          return getter.fn(frame.context, [o]);
        } catch (err) {
          throw withPosition(err, n.line, n.col);
        }
      }
      throw runtimeError('ErrorDotExpr', `Unknown property '${name}' of ${typeOf(o)}`, n.line, n.col);
    };
  }

  private args(nodes: Node[]): (frame: Frame) => RhaiValue[] {
    const evs = nodes.map((a) => this.owned(a));
    const n = evs.length;
    if (n === 0) return () => [];
    if (n === 1) {
      const a = evs[0]!;
      return (frame) => [a(frame)];
    }
    return (frame) => {
      const out = new Array<RhaiValue>(n);
      for (let i = 0; i < n; i++) out[i] = evs[i]!(frame);
      return out;
    };
  }

  private rawArgs(nodes: Node[]): (frame: Frame) => RhaiValue[] {
    const evs = nodes.map((a) => this.expression(a));
    return (frame) => evs.map((e) => e(frame));
  }

  private call(n: Extract<Node, { kind: 'call' }>): Evaluator {
    const { name, line, col } = n;
    const argc = n.args.length;
    const at = (err: unknown): never => {
      throw withPosition(err, line, col);
    };
    if (n.namespace.length > 0) {
      const full = `${n.namespace.join('::')}::${name}`;
      return () => at(runtimeError('ErrorFunctionNotFound', `Function not found: ${full}`));
    }
    const special = this.specialCall(n);
    if (special) return special;
    const sf = this.functions.get(`${name}/${argc}`);
    if (sf) {
      const args = this.args(n.args);
      if (n.bang) {
        const names = this.visibleNames();
        return (frame) => {
          countOperation(frame.context);
          const dyn: DynamicScope = { frame, names };
          try {
            return callScript(frame.context, sf, undefined, args(frame), dyn);
          } catch (err) {
            return at(err);
          }
        };
      }
      return (frame) => {
        countOperation(frame.context);
        const argv = args(frame);
        try {
          return callScript(frame.context, sf, undefined, argv);
        } catch (err) {
          return at(err);
        }
      };
    }
    const b = lookupBuiltin(name);
    if (b && argc >= b.min && argc <= b.max) {
      const args = this.rawArgs(n.args);
      const first = n.args[0];
      const setBack = first && first.kind === 'var' ? this.setter(first) : undefined;
      const fn = b.fn;
      return (frame) => {
        const context = frame.context;
        countOperation(context);
        const argv = args(frame);
        const orig = argv[0];
        try {
          const r = fn(context, argv);
          if (setBack && argv[0] !== orig) setBack(frame, argv[0]);
          return checkResult(context, r);
        } catch (err) {
          return at(err);
        }
      };
    }
    // A variable holding a function pointer can be called like a function.
    const ptr = this.isVisible(name) || this.scope.kind !== 'fn' ? this.varRead(name, line, col) : undefined;
    const args = this.args(n.args);
    return (frame) => {
      countOperation(frame.context);
      const argv = args(frame);
      try {
        const p = ptr ? ptr(frame) : undefined;
        if (p instanceof FunctionPointer) return callFunctionPointer(frame.context, p, undefined, argv);
      } catch (err) {
        if (!(err instanceof RhaiError && err.kind === 'ErrorVariableNotFound')) return at(err);
      }
      return at(
        runtimeError('ErrorFunctionNotFound', `Function not found: ${name} (${argv.map(typeOf).join(', ')})`),
      );
    };
  }

  private specialCall(n: Extract<Node, { kind: 'call' }>): Evaluator | undefined {
    const { name, line, col } = n;
    const argc = n.args.length;
    const at = (err: unknown): never => {
      throw withPosition(err, line, col);
    };
    if (name === 'is_def_var' && argc === 1) {
      const a = n.args[0]!;
      const known = a.kind === 'lit' && a.value.type === 'str' && this.isVisible(a.value.value);
      const arg = this.expression(a);
      return (frame) => {
        countOperation(frame.context);
        if (known) return true;
        const v = arg(frame);
        return (
          typeof v === 'string' &&
          (frame.context.externals.has(v) || (frame.dynamicScope?.names.has(v) ?? false))
        );
      };
    }
    if (name === 'is_shared' && argc === 1) {
      const a = n.args[0]!;
      if (a.kind !== 'var') return () => false;
      const ref = this.resolve(a.name);
      return (frame) => {
        countOperation(frame.context);
        if (ref.kind === 'slot') return frame.slots[ref.slot] instanceof SharedCell;
        if (ref.kind === 'external') return frame.context.externals.get(a.name) instanceof SharedCell;
        return false;
      };
    }
    if (name === 'is_def_fn' && (argc === 1 || argc === 2)) {
      const args = this.rawArgs(n.args);
      return (frame) => {
        countOperation(frame.context);
        const [nm, ar] = args(frame);
        if (typeof nm !== 'string') return false;
        if (argc === 1) return frame.context.hasFunctionNamed(nm);
        return typeof ar === 'number' && frame.context.scriptFunction(nm, ar) !== undefined;
      };
    }
    if ((name === 'call' || name === 'curry') && argc >= 1 && !this.functions.has(`${name}/${argc}`)) {
      const args = this.args(n.args);
      const isCall = name === 'call';
      const names = n.bang ? this.visibleNames() : undefined;
      return (frame) => {
        countOperation(frame.context);
        const argv = args(frame);
        try {
          const fp = asFunctionPointer(argv[0]);
          const dyn: DynamicScope | undefined = names ? { frame, names } : undefined;
          return isCall
            ? callFunctionPointer(frame.context, fp, undefined, argv.slice(1), dyn)
            : fp.withCurried(argv.slice(1));
        } catch (err) {
          return at(err);
        }
      };
    }
    return undefined;
  }

  private setter(n: Node): ((frame: Frame, v: RhaiValue) => void) | undefined {
    if (!this.isPlace(n)) return undefined;
    const upd = this.updater(n);
    return (frame, v) => upd(frame, () => v);
  }

  private method(n: Extract<Node, { kind: 'method' }>): Evaluator {
    const { name, line, col } = n;
    if (name === 'is_shared' && n.args.length === 0) {
      // `x.is_shared()` is the keyword function `is_shared(x)` in method form.
      const call: Node = { kind: 'call', name, namespace: [], args: [n.target], bang: false, line, col };
      return this.specialCall(call)!;
    }
    const safe = this.chainSafe(n);
    const argc = n.args.length;
    const obj = this.expression(n.target);
    const setBack = this.setter(n.target);
    const sharedSlot = n.target.kind === 'var' ? this.resolve(n.target.name) : undefined;
    const at = (err: unknown): never => {
      throw withPosition(err, line, col);
    };
    const sf = this.functions.get(`${name}/${argc}`);
    const b = lookupBuiltin(name);
    const args = sf ? this.args(n.args) : this.rawArgs(n.args);
    const ownedArgs = sf ? args : this.args(n.args);
    return (frame) => {
      const context = frame.context;
      countOperation(context);
      const recv = obj(frame);
      if (safe && recv === undefined) return undefined;
      try {
        if (sf) {
          const ref: ThisReference = { value: recv };
          const r = callScript(context, sf, ref, args(frame));
          if (ref.value !== recv && setBack) setBack(frame, ref.value);
          return r;
        }
        if (name === 'call' || name === 'curry') {
          if (recv instanceof FunctionPointer) {
            const argv = ownedArgs(frame);
            return name === 'call'
              ? callFunctionPointer(context, recv, undefined, argv)
              : recv.withCurried(argv);
          }
          if (name === 'call' && argc >= 1) {
            const argv = ownedArgs(frame);
            const fp = asFunctionPointer(argv[0]);
            if (sharedSlot?.kind === 'slot' && fp.closure) {
              const cell = frame.slots[sharedSlot.slot];
              if (cell instanceof SharedCell && fp.closure.cells.includes(cell)) {
                throw runtimeError(
                  'ErrorDataRace',
                  'Data race: the object of the call is captured by the closure',
                );
              }
            }
            const ref: ThisReference = { value: recv };
            const r = callFunctionPointer(context, fp, ref, argv.slice(1));
            if (ref.value !== recv && setBack) setBack(frame, ref.value);
            return r;
          }
        }
        if (b && argc + 1 >= b.min && argc + 1 <= b.max) {
          const argv = args(frame);
          argv.unshift(recv);
          const r = b.fn(context, argv);
          if (argv[0] !== recv && setBack) setBack(frame, argv[0]);
          return checkResult(context, r);
        }
        if (recv instanceof Map) {
          const fp = recv.get(name);
          if (fp instanceof FunctionPointer) {
            const ref: ThisReference = { value: recv };
            return callFunctionPointer(context, fp, ref, ownedArgs(frame));
          }
        }
        const argv = args(frame);
        throw runtimeError(
          'ErrorFunctionNotFound',
          `Function not found: ${name} (${[recv, ...argv].map(typeOf).join(', ')})`,
        );
      } catch (err) {
        return at(err);
      }
    };
  }

  private closure(def: FunctionDefinition): Evaluator {
    const scope = new FunctionScope('closure', this.scope);
    const saved = [this.scope, this.blockDepth] as const;
    this.scope = scope;
    this.blockDepth = 1;
    for (const p of def.params) scope.declare(p, false);
    const body = this.statement(def.body);
    [this.scope, this.blockDepth] = saved;
    const params = def.params.length;
    const captures = scope.captures;
    const id = `anon$${this.closureId++}`;
    return (frame) => {
      const context = frame.context;
      countOperation(context);
      const cells: SharedCell[] = captures.map((cap) => cellOf(frame, cap.from, cap.name));
      const slotCount = scope.slotCount;
      const closure: ClosureValue = {
        params,
        cells,
        invoke: (thisRef, args) => {
          if (context.callDepth >= context.limits.maxCallLevels)
            throw runtimeError('ErrorStackOverflow', 'Stack overflow calling a closure');
          context.checkVariables(0, params + captures.length, false);
          countOperation(context);
          const slots: Slot[] = new Array<Slot>(slotCount);
          for (let i = 0; i < args.length; i++) slots[i] = args[i];
          for (let i = 0; i < captures.length; i++) slots[captures[i]!.slot] = cells[i];
          context.callDepth++;
          try {
            let r = body(new Frame(context, slots, thisRef, undefined));
            if (context.control === 'return') {
              r = context.controlValue;
              context.controlValue = undefined;
            }
            context.control = 'none';
            return ownedValue(r);
          } catch (err) {
            throw wrapFunctionError(err, id);
          } finally {
            context.callDepth--;
          }
        },
      };
      return new FunctionPointer(id, [], closure);
    };
  }

  private loopResult(frame: Frame): { stop: boolean; value: RhaiValue } | undefined {
    const context = frame.context;
    if (context.control === 'none') return undefined;
    if (context.control === 'continue') {
      context.control = 'none';
      return undefined;
    }
    if (context.control === 'break') {
      context.control = 'none';
      const value = context.controlValue;
      context.controlValue = undefined;
      return { stop: true, value };
    }
    return { stop: true, value: undefined };
  }

  private whileLoop(n: Extract<Node, { kind: 'while' }>): Evaluator {
    const cond = n.condition ? this.expression(n.condition) : undefined;
    const body = this.expression(n.body);
    return (frame) => {
      const context = frame.context;
      for (;;) {
        countOperation(context);
        if (cond) {
          const v = cond(frame);
          if (v === false) return undefined;
          if (v !== true)
            throw runtimeError(
              'ErrorMismatchDataType',
              `Expecting a bool condition, not ${typeOf(v)}`,
              n.line,
              n.col,
            );
        }
        body(frame);
        if (context.control !== 'none') {
          const r = this.loopResult(frame);
          if (r) return r.value;
        }
      }
    };
  }

  private doLoop(n: Extract<Node, { kind: 'do' }>): Evaluator {
    const cond = this.expression(n.condition);
    const body = this.expression(n.body);
    const until = n.until;
    return (frame) => {
      const context = frame.context;
      for (;;) {
        countOperation(context);
        body(frame);
        if (context.control !== 'none') {
          const r = this.loopResult(frame);
          if (r) return r.value;
        }
        const v = cond(frame);
        if (typeof v !== 'boolean')
          throw runtimeError(
            'ErrorMismatchDataType',
            `Expecting a bool condition, not ${typeOf(v)}`,
            n.line,
            n.col,
          );
        if (v === until) return undefined;
      }
    };
  }

  private forLoop(n: Extract<Node, { kind: 'for' }>): Evaluator {
    const iter = this.owned(n.iter);
    const mark = this.scope.vars.length;
    const live = this.scope.liveCount();
    const topLevel = this.scope.kind === 'top';
    this.blockDepth++;
    const slot = this.scope.declare(n.name, false).slot;
    const counter = n.counter !== undefined ? this.scope.declare(n.counter, false).slot : -1;
    const loopVariables = counter >= 0 ? 2 : 1;
    const body = this.expression(n.body);
    this.blockDepth--;
    this.scope.vars.length = mark;
    return (frame) => {
      const context = frame.context;
      countOperation(context);
      context.checkVariables(live, loopVariables, topLevel);
      const src = iter(frame);
      let i = 0;
      const step = (v: RhaiValue): { stop: boolean; value: RhaiValue } | undefined => {
        countOperation(context);
        frame.slots[slot] = v;
        if (counter >= 0) frame.slots[counter] = i;
        i++;
        body(frame);
        return context.control !== 'none' ? this.loopResult(frame) : undefined;
      };
      if (src instanceof RhaiRange) {
        if (typeof src.from === 'number' && typeof src.to === 'number' && typeof src.step === 'number') {
          const s = src.step;
          if (s === 0) throw runtimeError('ErrorArithmetic', 'Step value cannot be zero', n.line, n.col);
          const end = src.inclusive ? src.to + (s > 0 ? 1 : -1) : src.to;
          for (let x = src.from; s > 0 ? x < end : x > end; x += s) {
            const r = step(x);
            if (r) return r.value;
          }
          return undefined;
        }
        const s = BigInt(src.step);
        const end = BigInt(src.to);
        for (let x = BigInt(src.from); s > 0n ? (src.inclusive ? x <= end : x < end) : x > end; x += s) {
          const num = Number(x);
          const r = step(Number.isSafeInteger(num) ? num : x);
          if (r) return r.value;
        }
        return undefined;
      }
      if (src instanceof RhaiFloatRange) {
        if (src.step === 0) throw runtimeError('ErrorArithmetic', 'Step value cannot be zero', n.line, n.col);
        for (let x = src.from; src.step > 0 ? x < src.to : x > src.to; x += src.step) {
          const r = step(new RhaiFloat(x));
          if (r) return r.value;
        }
        return undefined;
      }
      let items: readonly RhaiValue[];
      if (Array.isArray(src)) items = src;
      else if (typeof src === 'string') items = chars(src).map((ch) => new RhaiChar(ch));
      else if (src instanceof RhaiBlob) items = Array.from(src.bytes);
      else throw runtimeError('ErrorFor', `Cannot iterate over ${typeOf(src)}`, n.line, n.col);
      for (const x of items) {
        const r = step(x);
        if (r) return r.value;
      }
      return undefined;
    };
  }

  private switchExpr(n: Extract<Node, { kind: 'switch' }>): Evaluator {
    const subject = this.expression(n.subject);
    const cases = n.cases.map((cs) => ({
      values: cs.values.map(literalValue),
      ranges: cs.ranges,
      cond: cs.condition ? this.expression(cs.condition) : undefined,
      body: this.expression(cs.body),
    }));
    const def = n.defaultCase ? this.expression(n.defaultCase) : undefined;
    return (frame) => {
      countOperation(frame.context);
      const v = subject(frame);
      const t = typeOf(v);
      for (const cs of cases) {
        let hit = cs.values.some((x) => typeOf(x) === t && valuesEqual(x, v));
        if (!hit && (typeof v === 'number' || typeof v === 'bigint')) {
          hit = cs.ranges.some((r) => v >= r.from && (r.inclusive ? v <= r.to : v < r.to));
        }
        if (hit && (!cs.cond || cs.cond(frame) === true)) return cs.body(frame);
      }
      return def ? def(frame) : undefined;
    };
  }

  private tryCatch(n: Extract<Node, { kind: 'try' }>): Evaluator {
    const body = this.expression(n.body);
    const mark = this.scope.vars.length;
    const live = this.scope.liveCount();
    const topLevel = this.scope.kind === 'top';
    const errSlot = n.errVar !== undefined ? this.scope.declare(n.errVar, false).slot : -1;
    this.blockDepth++;
    const handler = this.expression(n.handler);
    this.blockDepth--;
    this.scope.vars.length = mark;
    return (frame) => {
      const context = frame.context;
      countOperation(context);
      const level = context.callDepth;
      try {
        return body(frame);
      } catch (err) {
        const e = err instanceof RangeError ? new RhaiError('ErrorStackOverflow', 'Stack overflow') : err;
        if (!(e instanceof RhaiError) || !isCatchable(e)) throw e;
        context.callDepth = level;
        context.control = 'none';
        if (errSlot >= 0) {
          context.checkVariables(live, 1, topLevel);
          frame.slots[errSlot] = errorValue(e);
        }
        const prev = context.caught;
        context.caught = e;
        try {
          return handler(frame);
        } finally {
          context.caught = prev;
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
function errorValue(e: RhaiError): RhaiValue {
  const root = rootError(e);
  if (root.kind === 'ErrorRuntime') return root.thrown as RhaiValue;
  const m: RhaiMap = new Map();
  m.set('message', root.message);
  if (root.line > 0) {
    m.set('line', root.line);
    m.set('position', root.column);
  }
  return m;
}

function cellOf(frame: Frame, from: VariableReference, name: string): SharedCell {
  if (from.kind === 'slot') {
    const v = frame.slots[from.slot];
    if (v instanceof SharedCell && v !== unboundSlot) return v;
    const cell = new SharedCell(v instanceof SharedCell ? undefined : v);
    frame.slots[from.slot] = cell;
    return cell;
  }
  if (from.kind === 'external') {
    const m = frame.context.externals;
    const v = m.get(name);
    if (v instanceof SharedCell) return v;
    const cell = new SharedCell(v);
    if (m.has(name)) m.set(name, cell);
    return cell;
  }
  return new SharedCell(undefined);
}

/** `a op= b`: arrays and maps grow in place, everything else as the binary operator. */
function compound(context: Frame['context'], op: string, a: RhaiValue, b: RhaiValue): RhaiValue {
  if (op === '+') {
    if (typeof a === 'number' && typeof b === 'number') {
      const x = a + b;
      if (Number.isSafeInteger(x)) return x;
    } else if (typeof a === 'string' && typeof b === 'string') {
      return checkString(context, a + b);
    } else if (Array.isArray(a)) {
      if (Array.isArray(b)) for (const x of b) a.push(ownedValue(x));
      else a.push(ownedValue(b));
      checkSize(context, a);
      return a;
    } else if (a instanceof Map && b instanceof Map) {
      for (const [k, v] of b) a.set(k, ownedValue(v));
      checkSize(context, a);
      return a;
    } else if (a instanceof RhaiBlob) {
      // `blob += INT | char | string | blob` appends (a byte, UTF-8 bytes, bytes) in place.
      const more = blobAppendix(b);
      if (more) {
        const r = new Uint8Array(a.bytes.length + more.length);
        r.set(a.bytes);
        r.set(more, a.bytes.length);
        a.bytes = r;
        checkSize(context, a);
        return a;
      }
    }
  }
  return binaryOperation(context, op, a, b);
}
