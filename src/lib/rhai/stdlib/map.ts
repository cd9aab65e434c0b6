import { RhaiError } from '../errors.js';
import type { Ctx } from '../runtime.js';
import { callWithOptional, checkSize } from '../runtime.js';
import type { RMap, RValue } from '../values.js';
import { own } from '../values.js';
import { fnPtr, noOverload, str } from './args.js';
import { defFor } from './registry.js';

const M = 'map';
const map = (a: RValue[]): RMap => a[0] as RMap;

defFor(M, 'len', 1, 1, (_c, a) => map(a).size);
defFor(M, 'is_empty', 1, 1, (_c, a) => map(a).size === 0);
defFor(M, 'keys', 1, 1, (_c, a) => [...map(a).keys()]);
defFor(M, 'values', 1, 1, (_c, a) => [...map(a).values()].map(own));
defFor(M, 'contains', 2, 2, (_c, a) => map(a).has(str('contains', a, 1)));
defFor(M, 'get', 2, 2, (_c, a) => own(map(a).get(str('get', a, 1))));
defFor(M, 'set', 3, 3, (c, a) => {
  map(a).set(str('set', a, 1), own(a[2]));
  checkSize(c, map(a));
  return undefined;
});
defFor(M, 'remove', 2, 2, (_c, a) => {
  const k = str('remove', a, 1);
  const v = map(a).get(k);
  map(a).delete(k);
  return v;
});
defFor(M, 'clear', 1, 1, (_c, a) => {
  map(a).clear();
  return undefined;
});
function merge(overwrite: boolean) {
  return (c: Ctx, a: RValue[]): RValue => {
    const other = a[1];
    if (!(other instanceof Map)) throw noOverload(overwrite ? 'mixin' : 'fill_with', a);
    for (const [k, v] of other) if (overwrite || !map(a).has(k)) map(a).set(k, own(v));
    checkSize(c, map(a));
    return undefined;
  };
}
defFor(M, 'mixin', 2, 2, merge(true));
defFor(M, 'fill_with', 2, 2, merge(false));
function pick(keep: boolean, name: string) {
  return (c: Ctx, a: RValue[]): RValue => {
    const m = map(a);
    const f = fnPtr(name, a, 1);
    const out: RMap = new Map();
    for (const [k, v] of [...m]) {
      const r = callWithOptional(c, f, [k, v], 2);
      if (typeof r !== 'boolean')
        throw new RhaiError('ErrorMismatchDataType', `${name}: the callback must return a bool`);
      if (name === 'filter') {
        if (r) out.set(k, own(v));
      } else if (r !== keep) {
        out.set(k, v);
        m.delete(k);
      }
    }
    return out;
  };
}
defFor(M, 'filter', 2, 2, pick(true, 'filter'));
defFor(M, 'retain', 2, 2, pick(true, 'retain'));
defFor(M, 'drain', 2, 2, pick(false, 'drain'));
