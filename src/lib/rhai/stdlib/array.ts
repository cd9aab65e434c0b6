import { RhaiError } from '../errors.js';
import { normIndex, rangeBounds } from '../indexing.js';
import { compare } from '../operators.js';
import type { Ctx } from '../runtime.js';
import { callCallback, callWithOptional, checkSize } from '../runtime.js';
import type { RValue, ThisRef } from '../values.js';
import { FnPtr, own, RChar, RFloat, RRange, typeOf, valuesEqual } from '../values.js';
import { fnPtr, int, noOverload, pos } from './args.js';
import { defFor } from './registry.js';

const A = 'array';
const arr = (a: RValue[]): RValue[] => a[0] as RValue[];

/** Calls `fp` for an item with `this` bound to it (Rhai's array callbacks), writing `this` back. */
function each(c: Ctx, fp: FnPtr, items: RValue[], i: number, itemAsArg = true): RValue {
  const ref: ThisRef = { v: items[i] };
  const r = callCallback(c, fp, ref, [i], itemAsArg);
  items[i] = ref.v;
  return r;
}

function truthy(name: string, v: RValue): boolean {
  if (typeof v === 'boolean') return v;
  throw new RhaiError('ErrorMismatchDataType', `${name}: the callback must return a bool, not ${typeOf(v)}`);
}

function startLen(name: string, a: RValue[], len: number): [number, number] {
  if (a[1] instanceof RRange) return rangeBounds(a[1], len);
  const p = pos(name, a, 1);
  let s = p < 0 ? Math.max(0, len + p) : Math.min(p, len);
  s = Math.max(0, s);
  const n = a.length > 2 ? pos(name, a, 2) : len;
  return [s, n <= 0 ? s : Math.min(len, s + n)];
}

defFor(A, 'len', 1, 1, (_c, a) => arr(a).length);
defFor(A, 'is_empty', 1, 1, (_c, a) => arr(a).length === 0);
defFor(A, 'push', 2, 2, (c, a) => {
  arr(a).push(own(a[1]));
  checkSize(c, arr(a));
  return undefined;
});
defFor(A, 'append', 2, 2, (c, a) => {
  const x = a[1];
  if (Array.isArray(x)) for (const v of x) arr(a).push(own(v));
  else arr(a).push(own(x));
  checkSize(c, arr(a));
  return undefined;
});
defFor(A, 'insert', 3, 3, (c, a) => {
  const xs = arr(a);
  const p = pos('insert', a, 1);
  const i = p < 0 ? Math.max(0, xs.length + p) : Math.min(p, xs.length);
  xs.splice(i, 0, own(a[2]));
  checkSize(c, xs);
  return undefined;
});
defFor(A, 'pop', 1, 1, (_c, a) => arr(a).pop());
defFor(A, 'shift', 1, 1, (_c, a) => arr(a).shift());
defFor(A, 'remove', 2, 2, (_c, a) => {
  const xs = arr(a);
  const i = normIndex(int('remove', a, 1), xs.length);
  return i === undefined ? undefined : xs.splice(i, 1)[0];
});
defFor(A, 'clear', 1, 1, (_c, a) => {
  arr(a).length = 0;
  return undefined;
});
defFor(A, 'truncate', 2, 2, (_c, a) => {
  const n = Math.max(0, pos('truncate', a, 1));
  if (arr(a).length > n) arr(a).length = n;
  return undefined;
});
defFor(A, 'chop', 2, 2, (_c, a) => {
  const xs = arr(a);
  const n = Math.max(0, pos('chop', a, 1));
  xs.splice(0, Math.max(0, xs.length - n));
  return undefined;
});
defFor(A, 'pad', 3, 3, (c, a) => {
  const xs = arr(a);
  const n = pos('pad', a, 1);
  if (n > c.limits.maxArraySize)
    throw new RhaiError('ErrorDataTooLarge', 'Size of array exceeds the maximum limit');
  while (xs.length < n) xs.push(own(a[2]));
  checkSize(c, xs);
  return undefined;
});
defFor(A, 'extract', 2, 3, (_c, a) => {
  const [s, e] = startLen('extract', a, arr(a).length);
  return arr(a).slice(s, e).map(own);
});
defFor(A, 'split', 2, 2, (_c, a) => {
  const xs = arr(a);
  const p = pos('split', a, 1);
  const i = p < 0 ? Math.max(0, xs.length + p) : Math.min(p, xs.length);
  return xs.splice(i);
});
defFor(A, 'splice', 3, 4, (c, a) => {
  const xs = arr(a);
  const [s, e] =
    a[1] instanceof RRange ? rangeBounds(a[1], xs.length) : startLen('splice', a.slice(0, 3), xs.length);
  const repl = a[a.length - 1];
  xs.splice(s, e - s, ...(Array.isArray(repl) ? repl.map(own) : []));
  checkSize(c, xs);
  return undefined;
});
defFor(A, 'reverse', 1, 1, (_c, a) => {
  arr(a).reverse();
  return undefined;
});
defFor(A, 'get', 2, 2, (_c, a) => {
  const i = normIndex(int('get', a, 1), arr(a).length);
  return i === undefined ? undefined : own(arr(a)[i]);
});
defFor(A, 'set', 3, 3, (_c, a) => {
  const i = normIndex(int('set', a, 1), arr(a).length);
  if (i !== undefined) arr(a)[i] = own(a[2]);
  return undefined;
});
defFor(A, 'contains', 2, 2, (_c, a) => arr(a).some((x) => valuesEqual(x, a[1])));
defFor(A, 'index_of', 2, 3, (c, a) => {
  const xs = arr(a);
  const p = a.length > 2 ? pos('index_of', a, 2) : 0;
  const start = p < 0 ? Math.max(0, xs.length + p) : p;
  const f = a[1];
  for (let i = start; i < xs.length; i++) {
    if (f instanceof FnPtr ? truthy('index_of', each(c, f, xs, i)) : valuesEqual(xs[i], f)) return i;
  }
  return -1;
});
defFor(A, 'dedup', 1, 2, (_c, a) => {
  const xs = arr(a);
  const out: RValue[] = [];
  for (const x of xs) if (out.length === 0 || !valuesEqual(out[out.length - 1], x)) out.push(x);
  xs.length = 0;
  xs.push(...out);
  return undefined;
});
defFor(A, 'map', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('map', a, 1);
  const out: RValue[] = new Array<RValue>(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = each(c, f, xs, i);
  return out;
});
defFor(A, 'filter', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('filter', a, 1);
  const out: RValue[] = [];
  for (let i = 0; i < xs.length; i++) if (truthy('filter', each(c, f, xs, i))) out.push(own(xs[i]));
  return out;
});
defFor(A, 'for_each', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('for_each', a, 1);
  for (let i = 0; i < xs.length; i++) each(c, f, xs, i, false);
  return undefined;
});
defFor(A, 'some', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('some', a, 1);
  for (let i = 0; i < xs.length; i++) if (truthy('some', each(c, f, xs, i))) return true;
  return false;
});
defFor(A, 'all', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('all', a, 1);
  for (let i = 0; i < xs.length; i++) if (!truthy('all', each(c, f, xs, i))) return false;
  return true;
});
defFor(A, 'find', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('find', a, 1);
  for (let i = 0; i < xs.length; i++) if (truthy('find', each(c, f, xs, i))) return own(xs[i]);
  return undefined;
});
defFor(A, 'find_map', 2, 2, (c, a) => {
  const xs = arr(a);
  const f = fnPtr('find_map', a, 1);
  for (let i = 0; i < xs.length; i++) {
    const r = each(c, f, xs, i);
    if (r !== undefined) return r;
  }
  return undefined;
});
function reduce(rev: boolean) {
  return (c: Ctx, a: RValue[]): RValue => {
    const xs = arr(a);
    const f = fnPtr(rev ? 'reduce_rev' : 'reduce', a, 1);
    let acc = a.length > 2 ? a[2] : undefined;
    for (let k = 0; k < xs.length; k++) {
      const i = rev ? xs.length - 1 - k : k;
      acc = callWithOptional(c, f, [acc, xs[i], i], 2);
    }
    return acc;
  };
}
defFor(A, 'reduce', 2, 3, reduce(false));
defFor(A, 'reduce_rev', 2, 3, reduce(true));
function removeWhere(keep: boolean) {
  return (c: Ctx, a: RValue[]): RValue => {
    const xs = arr(a);
    const kept: RValue[] = [];
    const removed: RValue[] = [];
    if (a[1] instanceof RRange || typeof a[1] === 'number') {
      const [s, e] = startLen(keep ? 'retain' : 'drain', a, xs.length);
      xs.forEach((x, i) => ((i >= s && i < e) === keep ? kept : removed).push(x));
    } else {
      const f = fnPtr(keep ? 'retain' : 'drain', a, 1);
      for (let i = 0; i < xs.length; i++) {
        const hit = truthy('retain', each(c, f, xs, i));
        (hit === keep ? kept : removed).push(xs[i]);
      }
    }
    xs.length = 0;
    xs.push(...kept);
    return removed;
  };
}
defFor(A, 'retain', 2, 3, removeWhere(true));
defFor(A, 'drain', 2, 3, removeWhere(false));

const sortable = (v: RValue): boolean =>
  typeof v === 'number' ||
  typeof v === 'bigint' ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  v instanceof RFloat ||
  v instanceof RChar;

defFor(A, 'sort', 1, 2, (c, a) => {
  const xs = arr(a);
  if (a.length > 1) {
    const f = fnPtr('sort', a, 1);
    xs.sort((x, y) => {
      const r = callWithOptional(c, f, [x, y], 2);
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
defFor(A, 'sort_desc', 1, 1, (_c, a) => {
  arr(a).sort((x, y) => (compare('<', x, y) ? 1 : compare('>', x, y) ? -1 : 0));
  return undefined;
});
defFor(A, 'zip', 3, 3, (c, a) => {
  const xs = arr(a);
  const ys = a[1];
  if (!Array.isArray(ys)) throw noOverload('zip', a);
  const f = fnPtr('zip', a, 2);
  const n = Math.min(xs.length, ys.length);
  const out: RValue[] = [];
  for (let i = 0; i < n; i++) out.push(callWithOptional(c, f, [xs[i], ys[i], i], 2));
  return out;
});
