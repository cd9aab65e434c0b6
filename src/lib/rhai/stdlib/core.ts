import { RhaiError } from '../errors.js';
import { toJson } from '../json.js';
import { checkString } from '../runtime.js';
import type { RhaiValue } from '../values.js';
import {
  FunctionPointer,
  RhaiChar,
  RhaiFloat,
  RhaiFloatRange,
  RhaiRange,
  RhaiTimestamp,
  toDebug,
  toDisplay,
  typeOf,
} from '../values.js';
import { intArgument, noOverload, stringArgument } from './args.js';
import { defineFunction } from './registry.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

defineFunction('type_of', 1, 1, (_c, a) => typeOf(a[0]));
defineFunction('print', 1, 1, () => undefined);
defineFunction('debug', 1, 1, () => undefined);
defineFunction('to_string', 1, 1, (context, a) => checkString(context, toDisplay(a[0])));
defineFunction('to_debug', 1, 1, (context, a) => checkString(context, toDebug(a[0])));
defineFunction('Fn', 1, 1, (_c, a) => {
  const name = stringArgument('Fn', a, 0);
  if (!IDENT.test(name)) throw new RhaiError('ErrorFunctionNotFound', `Invalid function name: ${name}`);
  return new FunctionPointer(name);
});
defineFunction('name', 1, 1, (_c, a) => {
  if (a[0] instanceof FunctionPointer) return a[0].name;
  throw noOverload('name', a);
});
defineFunction('is_anonymous', 1, 1, (_c, a) => {
  if (a[0] instanceof FunctionPointer) return a[0].closure !== undefined;
  throw noOverload('is_anonymous', a);
});
defineFunction('timestamp', 0, 0, () => new RhaiTimestamp(performance.now()));
defineFunction('elapsed', 1, 1, (_c, a) => {
  if (a[0] instanceof RhaiTimestamp) return new RhaiFloat((performance.now() - a[0].ms) / 1000);
  throw noOverload('elapsed', a);
});
defineFunction('range', 2, 3, (_c, a) => {
  const [from, to, step] = a;
  if (from instanceof RhaiFloat || to instanceof RhaiFloat || step instanceof RhaiFloat) {
    const n = (v: RhaiValue): number => (v instanceof RhaiFloat ? v.value : Number(v));
    return new RhaiFloatRange(n(from), n(to), a.length > 2 ? n(step) : 1);
  }
  const s = a.length > 2 ? intArgument('range', a, 2) : 1;
  if (s === 0 || s === 0n) throw new RhaiError('ErrorArithmetic', 'Step value cannot be zero');
  return new RhaiRange(intArgument('range', a, 0), intArgument('range', a, 1), false, s);
});
defineFunction('start', 1, 1, (_c, a) => {
  if (a[0] instanceof RhaiRange) return a[0].from;
  throw noOverload('start', a);
});
defineFunction('end', 1, 1, (_c, a) => {
  if (a[0] instanceof RhaiRange) return a[0].to;
  throw noOverload('end', a);
});
defineFunction('is_inclusive', 1, 1, (_c, a) => {
  if (a[0] instanceof RhaiRange) return a[0].inclusive;
  throw noOverload('is_inclusive', a);
});
defineFunction('to_json', 1, 1, (context, a) => checkString(context, JSON.stringify(toJson(a[0]))));
defineFunction('to_char', 1, 1, (_c, a) => {
  const n = Number(intArgument('to_char', a, 0));
  if (n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff))
    throw new RhaiError('ErrorArithmetic', `Invalid char code: ${n}`);
  return new RhaiChar(String.fromCodePoint(n));
});
