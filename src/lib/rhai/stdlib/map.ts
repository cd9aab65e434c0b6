import { RhaiError } from '../errors.js';
import type { EvaluationContext } from '../evaluation-context.js';
import { callWithOptional, checkSize } from '../runtime.js';
import type { RhaiMap, RhaiValue } from '../values.js';
import { ownedValue } from '../values.js';
import { functionPointerArgument, noOverload, stringArgument } from './args.js';
import { defineFunctionFor } from './registry.js';

const M = 'map';
const map = (a: RhaiValue[]): RhaiMap => a[0] as RhaiMap;

defineFunctionFor(M, 'len', 1, 1, (_c, a) => map(a).size);
defineFunctionFor(M, 'is_empty', 1, 1, (_c, a) => map(a).size === 0);
defineFunctionFor(M, 'keys', 1, 1, (_c, a) => [...map(a).keys()]);
defineFunctionFor(M, 'values', 1, 1, (_c, a) => [...map(a).values()].map(ownedValue));
defineFunctionFor(M, 'contains', 2, 2, (_c, a) => map(a).has(stringArgument('contains', a, 1)));
defineFunctionFor(M, 'get', 2, 2, (_c, a) => ownedValue(map(a).get(stringArgument('get', a, 1))));
defineFunctionFor(M, 'set', 3, 3, (context, a) => {
  map(a).set(stringArgument('set', a, 1), ownedValue(a[2]));
  checkSize(context, map(a));
  return undefined;
});
defineFunctionFor(M, 'remove', 2, 2, (_c, a) => {
  const k = stringArgument('remove', a, 1);
  const v = map(a).get(k);
  map(a).delete(k);
  return v;
});
defineFunctionFor(M, 'clear', 1, 1, (_c, a) => {
  map(a).clear();
  return undefined;
});
function merge(overwrite: boolean) {
  return (context: EvaluationContext, a: RhaiValue[]): RhaiValue => {
    const other = a[1];
    if (!(other instanceof Map)) throw noOverload(overwrite ? 'mixin' : 'fill_with', a);
    for (const [k, v] of other) if (overwrite || !map(a).has(k)) map(a).set(k, ownedValue(v));
    checkSize(context, map(a));
    return undefined;
  };
}
defineFunctionFor(M, 'mixin', 2, 2, merge(true));
defineFunctionFor(M, 'fill_with', 2, 2, merge(false));
function pick(keep: boolean, name: string) {
  return (context: EvaluationContext, a: RhaiValue[]): RhaiValue => {
    const m = map(a);
    const f = functionPointerArgument(name, a, 1);
    const out: RhaiMap = new Map();
    for (const [k, v] of [...m]) {
      const r = callWithOptional(context, f, [k, v], 2);
      if (typeof r !== 'boolean')
        throw new RhaiError('ErrorMismatchDataType', `${name}: the callback must return a bool`);
      if (name === 'filter') {
        if (r) out.set(k, ownedValue(v));
      } else if (r !== keep) {
        out.set(k, v);
        m.delete(k);
      }
    }
    return out;
  };
}
defineFunctionFor(M, 'filter', 2, 2, pick(true, 'filter'));
defineFunctionFor(M, 'retain', 2, 2, pick(true, 'retain'));
defineFunctionFor(M, 'drain', 2, 2, pick(false, 'drain'));
