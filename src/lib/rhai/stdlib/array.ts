import { RhaiError } from '../errors.js';
import { normalizeIndex, rangeBounds } from '../indexing.js';
import { compare } from '../operators.js';
import type { EvaluationContext } from '../evaluation-context.js';
import { callCallback, callWithOptional, checkSize, rootError } from '../runtime.js';
import type { RhaiValue, ThisReference } from '../values.js';
import {
  FunctionPointer,
  ownedValue,
  RhaiChar,
  RhaiFloat,
  RhaiRange,
  typeOf,
  valuesEqual,
} from '../values.js';
import { functionPointerArgument, intArgument, noOverload, clampedIntArgument } from './args.js';
import { defineFunctionFor, lookupBuiltin } from './registry.js';

const A = 'array';
const arr = (a: RhaiValue[]): RhaiValue[] => a[0] as RhaiValue[];

/** Calls `fp` for an item with `this` bound to it (Rhai's array callbacks), writing `this` back. */
function each(
  context: EvaluationContext,
  fp: FunctionPointer,
  items: RhaiValue[],
  i: number,
  itemAsArg = true,
): RhaiValue {
  const ref: ThisReference = { value: items[i] };
  const r = callCallback(context, fp, ref, [i], itemAsArg);
  items[i] = ref.value;
  return r;
}

function truthy(name: string, v: RhaiValue): boolean {
  if (typeof v === 'boolean') return v;
  throw new RhaiError('ErrorMismatchDataType', `${name}: the callback must return a bool, not ${typeOf(v)}`);
}

function startLen(name: string, a: RhaiValue[], len: number): [number, number] {
  if (a[1] instanceof RhaiRange) return rangeBounds(a[1], len);
  const p = clampedIntArgument(name, a, 1);
  let s = p < 0 ? Math.max(0, len + p) : Math.min(p, len);
  s = Math.max(0, s);
  const n = a.length > 2 ? clampedIntArgument(name, a, 2) : len;
  return [s, n <= 0 ? s : Math.min(len, s + n)];
}

defineFunctionFor(A, 'len', 1, 1, (_c, a) => arr(a).length);
defineFunctionFor(A, 'is_empty', 1, 1, (_c, a) => arr(a).length === 0);
defineFunctionFor(A, 'push', 2, 2, (context, a) => {
  arr(a).push(ownedValue(a[1]));
  checkSize(context, arr(a));
  return undefined;
});
defineFunctionFor(A, 'append', 2, 2, (context, a) => {
  const x = a[1];
  if (Array.isArray(x)) for (const v of x) arr(a).push(ownedValue(v));
  else arr(a).push(ownedValue(x));
  checkSize(context, arr(a));
  return undefined;
});
defineFunctionFor(A, 'insert', 3, 3, (context, a) => {
  const xs = arr(a);
  const p = clampedIntArgument('insert', a, 1);
  const i = p < 0 ? Math.max(0, xs.length + p) : Math.min(p, xs.length);
  xs.splice(i, 0, ownedValue(a[2]));
  checkSize(context, xs);
  return undefined;
});
defineFunctionFor(A, 'pop', 1, 1, (_c, a) => arr(a).pop());
defineFunctionFor(A, 'shift', 1, 1, (_c, a) => arr(a).shift());
defineFunctionFor(A, 'remove', 2, 2, (_c, a) => {
  const xs = arr(a);
  const i = normalizeIndex(intArgument('remove', a, 1), xs.length);
  return i === undefined ? undefined : xs.splice(i, 1)[0];
});
defineFunctionFor(A, 'clear', 1, 1, (_c, a) => {
  arr(a).length = 0;
  return undefined;
});
defineFunctionFor(A, 'truncate', 2, 2, (_c, a) => {
  const n = Math.max(0, clampedIntArgument('truncate', a, 1));
  if (arr(a).length > n) arr(a).length = n;
  return undefined;
});
defineFunctionFor(A, 'chop', 2, 2, (_c, a) => {
  const xs = arr(a);
  const n = Math.max(0, clampedIntArgument('chop', a, 1));
  xs.splice(0, Math.max(0, xs.length - n));
  return undefined;
});
defineFunctionFor(A, 'pad', 3, 3, (context, a) => {
  const xs = arr(a);
  const n = clampedIntArgument('pad', a, 1);
  if (n > context.limits.maxArraySize)
    throw new RhaiError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  while (xs.length < n) xs.push(ownedValue(a[2]));
  checkSize(context, xs);
  return undefined;
});
defineFunctionFor(A, 'extract', 2, 3, (_c, a) => {
  const [s, e] = startLen('extract', a, arr(a).length);
  return arr(a).slice(s, e).map(ownedValue);
});
defineFunctionFor(A, 'split', 2, 2, (_c, a) => {
  const xs = arr(a);
  const p = clampedIntArgument('split', a, 1);
  const i = p < 0 ? Math.max(0, xs.length + p) : Math.min(p, xs.length);
  return xs.splice(i);
});
defineFunctionFor(A, 'splice', 3, 4, (context, a) => {
  const xs = arr(a);
  const [s, e] =
    a[1] instanceof RhaiRange ? rangeBounds(a[1], xs.length) : startLen('splice', a.slice(0, 3), xs.length);
  const repl = a[a.length - 1];
  xs.splice(s, e - s, ...(Array.isArray(repl) ? repl.map(ownedValue) : []));
  checkSize(context, xs);
  return undefined;
});
defineFunctionFor(A, 'reverse', 1, 1, (_c, a) => {
  arr(a).reverse();
  return undefined;
});
defineFunctionFor(A, 'get', 2, 2, (_c, a) => {
  const i = normalizeIndex(intArgument('get', a, 1), arr(a).length);
  return i === undefined ? undefined : ownedValue(arr(a)[i]);
});
defineFunctionFor(A, 'set', 3, 3, (_c, a) => {
  const i = normalizeIndex(intArgument('set', a, 1), arr(a).length);
  if (i !== undefined) arr(a)[i] = ownedValue(a[2]);
  return undefined;
});
defineFunctionFor(A, 'contains', 2, 2, (_c, a) => arr(a).some((x) => valuesEqual(x, a[1])));
defineFunctionFor(A, 'index_of', 2, 3, (context, a) => {
  const xs = arr(a);
  const p = a.length > 2 ? clampedIntArgument('index_of', a, 2) : 0;
  const start = p < 0 ? Math.max(0, xs.length + p) : p;
  const f = a[1];
  if (typeof f === 'string' && (context.hasFunctionNamed(f) || lookupBuiltin(f))) {
    // Rhai's deprecated form: a string naming a function is a filter; if no such function takes an
    // element, the string is searched for as a value instead.
    try {
      return indexWhere(context, xs, start, new FunctionPointer(f));
    } catch (e) {
      if (!(e instanceof RhaiError) || rootError(e).kind !== 'ErrorFunctionNotFound') throw e;
    }
  }
  if (f instanceof FunctionPointer) return indexWhere(context, xs, start, f);
  for (let i = start; i < xs.length; i++) if (valuesEqual(xs[i], f)) return i;
  return -1;
});
function indexWhere(context: EvaluationContext, xs: RhaiValue[], start: number, f: FunctionPointer): number {
  for (let i = start; i < xs.length; i++) if (truthy('index_of', each(context, f, xs, i))) return i;
  return -1;
}
defineFunctionFor(A, 'dedup', 1, 2, (context, a) => {
  const xs = arr(a);
  const f = a.length > 1 ? functionPointerArgument('dedup', a, 1, true) : undefined;
  const same = (x: RhaiValue, y: RhaiValue): boolean =>
    f ? callWithOptional(context, f, [x, y], 2) === true : valuesEqual(x, y);
  const out: RhaiValue[] = [];
  for (const x of xs) if (out.length === 0 || !same(out[out.length - 1], x)) out.push(x);
  xs.length = 0;
  xs.push(...out);
  return undefined;
});
defineFunctionFor(A, 'map', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('map', a, 1, true);
  const out: RhaiValue[] = new Array<RhaiValue>(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = each(context, f, xs, i);
  return out;
});
defineFunctionFor(A, 'filter', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('filter', a, 1, true);
  const out: RhaiValue[] = [];
  for (let i = 0; i < xs.length; i++)
    if (truthy('filter', each(context, f, xs, i))) out.push(ownedValue(xs[i]));
  return out;
});
defineFunctionFor(A, 'for_each', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('for_each', a, 1);
  for (let i = 0; i < xs.length; i++) each(context, f, xs, i, false);
  return undefined;
});
defineFunctionFor(A, 'some', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('some', a, 1, true);
  for (let i = 0; i < xs.length; i++) if (truthy('some', each(context, f, xs, i))) return true;
  return false;
});
defineFunctionFor(A, 'all', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('all', a, 1, true);
  for (let i = 0; i < xs.length; i++) if (!truthy('all', each(context, f, xs, i))) return false;
  return true;
});
defineFunctionFor(A, 'find', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('find', a, 1);
  for (let i = 0; i < xs.length; i++) if (truthy('find', each(context, f, xs, i))) return ownedValue(xs[i]);
  return undefined;
});
defineFunctionFor(A, 'find_map', 2, 2, (context, a) => {
  const xs = arr(a);
  const f = functionPointerArgument('find_map', a, 1);
  for (let i = 0; i < xs.length; i++) {
    const r = each(context, f, xs, i);
    if (r !== undefined) return r;
  }
  return undefined;
});
function reduce(rev: boolean) {
  return (context: EvaluationContext, a: RhaiValue[]): RhaiValue => {
    const xs = arr(a);
    const f = functionPointerArgument(rev ? 'reduce_rev' : 'reduce', a, 1, true);
    let acc = a.length > 2 ? a[2] : undefined;
    for (let k = 0; k < xs.length; k++) {
      const i = rev ? xs.length - 1 - k : k;
      acc = callWithOptional(context, f, [acc, xs[i], i], 2);
    }
    return acc;
  };
}
defineFunctionFor(A, 'reduce', 2, 3, reduce(false));
defineFunctionFor(A, 'reduce_rev', 2, 3, reduce(true));
function removeWhere(keep: boolean) {
  return (context: EvaluationContext, a: RhaiValue[]): RhaiValue => {
    const xs = arr(a);
    const kept: RhaiValue[] = [];
    const removed: RhaiValue[] = [];
    if (a[1] instanceof RhaiRange || typeof a[1] === 'number') {
      const [s, e] = startLen(keep ? 'retain' : 'drain', a, xs.length);
      xs.forEach((x, i) => ((i >= s && i < e) === keep ? kept : removed).push(x));
    } else {
      const f = functionPointerArgument(keep ? 'retain' : 'drain', a, 1, true);
      for (let i = 0; i < xs.length; i++) {
        const hit = truthy('retain', each(context, f, xs, i));
        (hit === keep ? kept : removed).push(xs[i]);
      }
    }
    xs.length = 0;
    xs.push(...kept);
    return removed;
  };
}
defineFunctionFor(A, 'retain', 2, 3, removeWhere(true));
defineFunctionFor(A, 'drain', 2, 3, removeWhere(false));

const sortable = (v: RhaiValue): boolean =>
  typeof v === 'number' ||
  typeof v === 'bigint' ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  v instanceof RhaiFloat ||
  v instanceof RhaiChar;

defineFunctionFor(A, 'sort', 1, 2, (context, a) => {
  const xs = arr(a);
  if (a.length > 1) {
    const f = functionPointerArgument('sort', a, 1, true);
    xs.sort((x, y) => {
      const r = callWithOptional(context, f, [x, y], 2);
      if (typeof r !== 'number' && typeof r !== 'bigint') throw noOverload('sort', a);
      return Number(r);
    });
    return undefined;
  }
  if (xs.length === 0) return undefined;
  const t = typeOf(xs[0]);
  if (!xs.every((x) => sortable(x) && typeOf(x) === t)) {
    throw new RhaiError('ErrorFunctionNotFound', 'sort: elements must all be of the same sortable type');
  }
  xs.sort((x, y) => (compare('<', x, y) ? -1 : compare('>', x, y) ? 1 : 0));
  return undefined;
});
defineFunctionFor(A, 'sort_desc', 1, 1, (_c, a) => {
  arr(a).sort((x, y) => (compare('<', x, y) ? 1 : compare('>', x, y) ? -1 : 0));
  return undefined;
});
defineFunctionFor(A, 'zip', 3, 3, (context, a) => {
  const xs = arr(a);
  const ys = a[1];
  if (!Array.isArray(ys)) throw noOverload('zip', a);
  const f = functionPointerArgument('zip', a, 2);
  const n = Math.min(xs.length, ys.length);
  const out: RhaiValue[] = [];
  for (let i = 0; i < n; i++) out.push(callWithOptional(context, f, [xs[i], ys[i], i], 2));
  return out;
});
