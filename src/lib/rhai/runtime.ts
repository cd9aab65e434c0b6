import { isSystemError, RhaiError } from './errors.js';
import type { DynamicScope, EvaluationContext, ScriptFunction, Slot } from './evaluation-context.js';
import { Frame } from './evaluation-context.js';
import { lookupBuiltin } from './stdlib/registry.js';
import type { RhaiValue, ThisReference } from './values.js';
import type { FunctionPointer } from './values.js';
import { ownedValue, RhaiBlob, SharedCell } from './values.js';

/** Counts one operation. */
export function countOperation(context: EvaluationContext): void {
  if (++context.operations > context.nextLimitCheck) context.checkLimits();
}

/** Runtime error with an optional position. */
export function runtimeError(kind: string, message: string, line = 0, col = 0): RhaiError {
  return new RhaiError(kind, message, line, col);
}

/** Adds a position to an error that has none, and turns JS stack exhaustion into a Rhai error. */
export function withPosition(e: unknown, line: number, col: number): unknown {
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
export function checkString(context: EvaluationContext, s: string): string {
  const max = context.limits.maxStringSize;
  if (s.length * 3 > max && utf8Length(s) > max) {
    throw runtimeError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  }
  return s;
}

/** Length of a string in UTF-8 bytes (Rhai measures string sizes in bytes). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Fails when an array or map (with everything nested in it) exceeds the size limits. */
export function checkSize(context: EvaluationContext, v: RhaiValue): void {
  const l = context.limits;
  if (Array.isArray(v)) {
    if (v.length > l.maxArraySize)
      throw runtimeError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  } else if (v instanceof Map) {
    if (v.size > l.maxMapSize)
      throw runtimeError('ErrorDataTooLarge', 'Size of object map exceeds the maximum limit');
  } else {
    if (v instanceof RhaiBlob && v.bytes.length > l.maxArraySize) {
      throw runtimeError('ErrorDataTooLarge', 'Size of BLOB exceeds the maximum limit');
    }
    return;
  }
  const sizes = [0, 0];
  deepSize(v, sizes, 0);
  if (sizes[0]! > l.maxArraySize)
    throw runtimeError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  if (sizes[1]! > l.maxMapSize)
    throw runtimeError('ErrorDataTooLarge', 'Size of object map exceeds the maximum limit');
}

/** Containers nested deeper than this are refused, so that copying and JSON conversion stay shallow. */
const MAX_NESTING = 512;

function deepSize(v: RhaiValue, sizes: number[], depth: number): void {
  if (depth > MAX_NESTING) throw runtimeError('ErrorDataTooLarge', 'Data nested too deeply');
  if (Array.isArray(v)) {
    sizes[0]! += v.length;
    for (const x of v) if (typeof x === 'object') deepSize(x, sizes, depth + 1);
  } else if (v instanceof Map) {
    sizes[1]! += v.size;
    for (const x of v.values()) if (typeof x === 'object') deepSize(x, sizes, depth + 1);
  }
}

/** Checks the top-level size of a container returned by a native function. */
export function checkResult(context: EvaluationContext, v: RhaiValue): RhaiValue {
  if (Array.isArray(v) && v.length > context.limits.maxArraySize) {
    throw runtimeError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  }
  return v;
}

/** Calls a script function with `this` (or none) and owned arguments. */
export function callScript(
  context: EvaluationContext,
  fn: ScriptFunction,
  thisRef: ThisReference | undefined,
  args: RhaiValue[],
  dyn?: DynamicScope,
): RhaiValue {
  if (context.callDepth >= context.limits.maxCallLevels) {
    throw runtimeError('ErrorStackOverflow', `Stack overflow calling function '${fn.name}'`);
  }
  context.checkVariables(0, fn.arity, false);
  countOperation(context);
  const slots: Slot[] = new Array<Slot>(fn.slotCount);
  for (let i = 0; i < args.length; i++) slots[i] = args[i];
  context.callDepth++;
  try {
    let r = fn.body(new Frame(context, slots, thisRef, dyn));
    if (context.control === 'return') {
      r = context.controlValue;
      context.controlValue = undefined;
    }
    context.control = 'none';
    return ownedValue(r);
  } catch (e) {
    throw wrapFunctionError(e, fn.name);
  } finally {
    context.callDepth--;
  }
}

/** Wraps a non-system error raised inside a function, as Rhai's `ErrorInFunctionCall`. */
export function wrapFunctionError(e: unknown, name: string): unknown {
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
function pointerAccepts(context: EvaluationContext, fp: FunctionPointer, n: number): boolean {
  if (fp.closure) return fp.closure.params === n;
  return context.scriptFunction(fp.name, n) !== undefined;
}

/** Calls a function pointer with `this` (optional) and arguments after its curried ones. */
export function callFunctionPointer(
  context: EvaluationContext,
  fp: FunctionPointer,
  thisRef: ThisReference | undefined,
  args: RhaiValue[],
  dyn?: DynamicScope,
): RhaiValue {
  const all = fp.curried.length === 0 ? args : [...fp.curried, ...args];
  if (fp.closure) {
    if (fp.closure.params !== all.length) {
      throw runtimeError(
        'ErrorFunctionNotFound',
        `Function not found: <closure> with ${all.length} parameter(s)`,
      );
    }
    return fp.closure.invoke(thisRef, all);
  }
  const sf = context.scriptFunction(fp.name, all.length);
  if (sf) return callScript(context, sf, thisRef, all, dyn);
  const b = lookupBuiltin(fp.name);
  if (b) {
    const bargs = thisRef ? [thisRef.value, ...all] : all;
    if (bargs.length >= b.min && bargs.length <= b.max) {
      const r = b.fn(context, bargs);
      if (thisRef) thisRef.value = bargs[0];
      return r;
    }
  }
  throw runtimeError(
    'ErrorFunctionNotFound',
    `Function not found: ${fp.name} with ${all.length} parameter(s)`,
  );
}

/**
 * Calls a callback the way Rhai's array functions do: first with `this` bound to the item and only
 * the curried arguments, then with the item as an argument, then with the extra arguments too.
 */
export function callCallback(
  context: EvaluationContext,
  fp: FunctionPointer,
  item: ThisReference,
  extras: RhaiValue[],
  itemAsArg: boolean,
): RhaiValue {
  const base = fp.curried.length;
  if (pointerAccepts(context, fp, base)) return callFunctionPointer(context, fp, item, []);
  if (itemAsArg) {
    if (pointerAccepts(context, fp, base + 1)) return callFunctionPointer(context, fp, item, [item.value]);
    return callFunctionPointer(context, fp, item, [item.value, ...extras]);
  }
  return callFunctionPointer(context, fp, item, extras);
}

/** Calls a callback with plain arguments, dropping trailing ones the callback does not take. */
export function callWithOptional(
  context: EvaluationContext,
  fp: FunctionPointer,
  args: RhaiValue[],
  required: number,
): RhaiValue {
  const base = fp.curried.length;
  for (let n = required; n <= args.length; n++) {
    if (pointerAccepts(context, fp, base + n))
      return callFunctionPointer(context, fp, undefined, args.slice(0, n));
  }
  return callFunctionPointer(context, fp, undefined, args);
}

/** A `SharedCell`-aware read of a slot. */
export function readSlot(s: Slot): RhaiValue {
  return s instanceof SharedCell ? s.value : s;
}
