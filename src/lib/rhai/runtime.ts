import { isSystemError, RhaiError } from './errors.js';
import type { ResolvedLimits } from './limits.js';
import { lookupBuiltin } from './stdlib/registry.js';
import type { RValue, ThisRef } from './values.js';
import type { FnPtr } from './values.js';
import { own, RBlob, SharedCell } from './values.js';

/** A variable slot: a value, or a cell shared with closures. */
export type Slot = RValue | SharedCell;

/** A compiled node: evaluates in a frame and yields a value. */
export type Ev = (f: Frame) => RValue;

/** Control-flow signals carried in `Ctx.ctl` instead of exceptions. */
export const CTL_NONE = 0;
export const CTL_BREAK = 1;
export const CTL_CONTINUE = 2;
export const CTL_RETURN = 3;

/** The caller's variables, visible to a function called with `name!(...)`. */
export interface DynScope {
  frame: Frame;
  names: ReadonlyMap<string, number>;
}

/** Activation record of the top level, a function or a closure. */
export class Frame {
  constructor(
    readonly c: Ctx,
    readonly s: Slot[],
    readonly thisRef: ThisRef | undefined,
    readonly dyn: DynScope | undefined,
  ) {}
}

/** A compiled script function. */
export interface ScriptFn {
  name: string;
  arity: number;
  nslots: number;
  body: Ev;
}

/** State of one run: counters, limits, control flow, functions and the host scope. */
export class Ctx {
  ops = 0;
  nextCheck: number;
  level = 0;
  ctl = CTL_NONE;
  ctlValue: RValue = undefined;
  /** The error being handled by the innermost running `catch` block (for a bare `throw`). */
  caught: RhaiError | undefined = undefined;
  readonly deadline: number;
  readonly globalConsts = new Map<string, RValue>();

  constructor(
    readonly limits: ResolvedLimits,
    readonly fns: ReadonlyMap<string, ScriptFn>,
    readonly externals: Map<string, Slot>,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
    this.nextCheck = Math.min(limits.maxOperations, 256);
  }

  /** Slow path of the operation counter: the operations limit and the wall-clock deadline. */
  check(): void {
    if (this.ops > this.limits.maxOperations) {
      throw new RhaiError('ErrorTooManyOperations', 'Too many operations');
    }
    if (Date.now() > this.deadline) throw new RhaiError('ErrorTerminated', 'Script timed out');
    this.nextCheck = Math.min(this.limits.maxOperations, this.ops + 256);
  }

  /** Script function by name and arity. */
  scriptFn(name: string, arity: number): ScriptFn | undefined {
    return this.fns.get(`${name}/${arity}`);
  }

  hasFnNamed(name: string): boolean {
    for (const f of this.fns.values()) if (f.name === name) return true;
    return false;
  }
}

/** Counts one operation. */
export function tick(c: Ctx): void {
  if (++c.ops > c.nextCheck) c.check();
}

/** Runtime error with an optional position. */
export function rtError(kind: string, message: string, line = 0, col = 0): RhaiError {
  return new RhaiError(kind, message, line, col);
}

/** Adds a position to an error that has none, and turns JS stack exhaustion into a Rhai error. */
export function withPos(e: unknown, line: number, col: number): unknown {
  if (e instanceof RhaiError) {
    if (e.line === 0) {
      e.line = line;
      e.column = col;
    }
    return e;
  }
  if (e instanceof RangeError) return new RhaiError('ErrorStackOverflow', 'Stack overflow', line, col);
  return e;
}

/** Fails when a string exceeds the size limit. */
export function checkString(c: Ctx, s: string): string {
  const max = c.limits.maxStringSize;
  if (s.length * 3 > max && utf8Length(s) > max) {
    throw rtError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  }
  return s;
}

/** Length of a string in UTF-8 bytes (Rhai measures string sizes in bytes). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Fails when an array or map (with everything nested in it) exceeds the size limits. */
export function checkSize(c: Ctx, v: RValue): void {
  const l = c.limits;
  if (Array.isArray(v)) {
    if (v.length > l.maxArraySize)
      throw rtError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  } else if (v instanceof Map) {
    if (v.size > l.maxMapSize)
      throw rtError('ErrorDataTooLarge', 'Size of object map exceeds the maximum limit');
  } else {
    if (v instanceof RBlob && v.bytes.length > l.maxArraySize) {
      throw rtError('ErrorDataTooLarge', 'Size of BLOB exceeds the maximum limit');
    }
    return;
  }
  const sizes = [0, 0];
  deepSize(v, sizes, 0);
  if (sizes[0]! > l.maxArraySize)
    throw rtError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  if (sizes[1]! > l.maxMapSize)
    throw rtError('ErrorDataTooLarge', 'Size of object map exceeds the maximum limit');
}

/** Containers nested deeper than this are refused, so that copying and JSON conversion stay shallow. */
const MAX_NESTING = 512;

function deepSize(v: RValue, sizes: number[], depth: number): void {
  if (depth > MAX_NESTING) throw rtError('ErrorDataTooLarge', 'Data nested too deeply');
  if (Array.isArray(v)) {
    sizes[0]! += v.length;
    for (const x of v) if (typeof x === 'object') deepSize(x, sizes, depth + 1);
  } else if (v instanceof Map) {
    sizes[1]! += v.size;
    for (const x of v.values()) if (typeof x === 'object') deepSize(x, sizes, depth + 1);
  }
}

/** Checks the top-level size of a container returned by a native function. */
export function checkResult(c: Ctx, v: RValue): RValue {
  if (Array.isArray(v) && v.length > c.limits.maxArraySize) {
    throw rtError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  }
  return v;
}

/** Calls a script function with `this` (or none) and owned arguments. */
export function callScript(
  c: Ctx,
  fn: ScriptFn,
  thisRef: ThisRef | undefined,
  args: RValue[],
  dyn?: DynScope,
): RValue {
  if (c.level >= c.limits.maxCallLevels) {
    throw rtError('ErrorStackOverflow', `Stack overflow calling function '${fn.name}'`);
  }
  tick(c);
  const slots: Slot[] = new Array<Slot>(fn.nslots);
  for (let i = 0; i < args.length; i++) slots[i] = args[i];
  c.level++;
  try {
    let r = fn.body(new Frame(c, slots, thisRef, dyn));
    if (c.ctl === CTL_RETURN) {
      r = c.ctlValue;
      c.ctlValue = undefined;
    }
    c.ctl = CTL_NONE;
    return own(r);
  } catch (e) {
    throw wrapFnError(e, fn.name);
  } finally {
    c.level--;
  }
}

/** Wraps a non-system error raised inside a function, as Rhai's `ErrorInFunctionCall`. */
export function wrapFnError(e: unknown, name: string): unknown {
  if (e instanceof RangeError) return new RhaiError('ErrorStackOverflow', 'Stack overflow');
  if (!(e instanceof RhaiError) || isSystemError(e) || name === '') return e;
  return new RhaiError(
    'ErrorInFunctionCall',
    `Error in call to function '${name}': ${e.describe()}`,
    e.line,
    e.column,
    {
      inner: e,
    },
  );
}

/** The innermost error of an `ErrorInFunctionCall` chain. */
export function rootError(e: RhaiError): RhaiError {
  let x = e;
  while (x.kind === 'ErrorInFunctionCall' && x.inner) x = x.inner;
  return x;
}

/** Arity of what a function pointer would call, or undefined when it names no script function. */
function ptrAccepts(c: Ctx, fp: FnPtr, n: number): boolean {
  if (fp.closure) return fp.closure.params === n;
  return c.scriptFn(fp.name, n) !== undefined;
}

/** Calls a function pointer with `this` (optional) and arguments after its curried ones. */
export function callFnPtr(
  c: Ctx,
  fp: FnPtr,
  thisRef: ThisRef | undefined,
  args: RValue[],
  dyn?: DynScope,
): RValue {
  const all = fp.curried.length === 0 ? args : [...fp.curried, ...args];
  if (fp.closure) {
    if (fp.closure.params !== all.length) {
      throw rtError('ErrorFunctionNotFound', `Function not found: <closure> with ${all.length} parameter(s)`);
    }
    return fp.closure.invoke(thisRef, all);
  }
  const sf = c.scriptFn(fp.name, all.length);
  if (sf) return callScript(c, sf, thisRef, all, dyn);
  const b = lookupBuiltin(fp.name);
  if (b) {
    const bargs = thisRef ? [thisRef.v, ...all] : all;
    if (bargs.length >= b.min && bargs.length <= b.max) {
      const r = b.fn(c, bargs);
      if (thisRef) thisRef.v = bargs[0];
      return r;
    }
  }
  throw rtError('ErrorFunctionNotFound', `Function not found: ${fp.name} with ${all.length} parameter(s)`);
}

/**
 * Calls a callback the way Rhai's array functions do: first with `this` bound to the item and only
 * the curried arguments, then with the item as an argument, then with the extra arguments too.
 */
export function callCallback(c: Ctx, fp: FnPtr, item: ThisRef, extras: RValue[], itemAsArg: boolean): RValue {
  const base = fp.curried.length;
  if (ptrAccepts(c, fp, base)) return callFnPtr(c, fp, item, []);
  if (itemAsArg) {
    if (ptrAccepts(c, fp, base + 1)) return callFnPtr(c, fp, item, [item.v]);
    return callFnPtr(c, fp, item, [item.v, ...extras]);
  }
  return callFnPtr(c, fp, item, extras);
}

/** Calls a callback with plain arguments, dropping trailing ones the callback does not take. */
export function callWithOptional(c: Ctx, fp: FnPtr, args: RValue[], required: number): RValue {
  const base = fp.curried.length;
  for (let n = required; n <= args.length; n++) {
    if (ptrAccepts(c, fp, base + n)) return callFnPtr(c, fp, undefined, args.slice(0, n));
  }
  return callFnPtr(c, fp, undefined, args);
}

/** A `SharedCell`-aware read of a slot. */
export function readSlot(s: Slot): RValue {
  return s instanceof SharedCell ? s.v : s;
}
