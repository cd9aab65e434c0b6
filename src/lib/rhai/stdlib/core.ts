import { RhaiError } from '../errors.js';
import { toJson } from '../json.js';
import { checkString } from '../runtime.js';
import type { RValue } from '../values.js';
import {
  FnPtr,
  RChar,
  RFloat,
  RFloatRange,
  RRange,
  RTimestamp,
  toDebug,
  toDisplay,
  typeOf,
} from '../values.js';
import { int, noOverload, str } from './args.js';
import { def } from './registry.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

def('type_of', 1, 1, (_c, a) => typeOf(a[0]));
def('print', 1, 1, () => undefined);
def('debug', 1, 1, () => undefined);
def('to_string', 1, 1, (c, a) => checkString(c, toDisplay(a[0])));
def('to_debug', 1, 1, (c, a) => checkString(c, toDebug(a[0])));
def('Fn', 1, 1, (_c, a) => {
  const name = str('Fn', a, 0);
  if (!IDENT.test(name)) throw new RhaiError('ErrorFunctionNotFound', `Invalid function name: ${name}`);
  return new FnPtr(name);
});
def('name', 1, 1, (_c, a) => {
  if (a[0] instanceof FnPtr) return a[0].name;
  throw noOverload('name', a);
});
def('is_anonymous', 1, 1, (_c, a) => {
  if (a[0] instanceof FnPtr) return a[0].closure !== undefined;
  throw noOverload('is_anonymous', a);
});
def('timestamp', 0, 0, () => new RTimestamp(performance.now()));
def('elapsed', 1, 1, (_c, a) => {
  if (a[0] instanceof RTimestamp) return new RFloat((performance.now() - a[0].ms) / 1000);
  throw noOverload('elapsed', a);
});
def('range', 2, 3, (_c, a) => {
  const [from, to, step] = a;
  if (from instanceof RFloat || to instanceof RFloat || step instanceof RFloat) {
    const n = (v: RValue): number => (v instanceof RFloat ? v.v : Number(v));
    return new RFloatRange(n(from), n(to), a.length > 2 ? n(step) : 1);
  }
  const s = a.length > 2 ? int('range', a, 2) : 1;
  if (s === 0 || s === 0n) throw new RhaiError('ErrorArithmetic', 'Step value cannot be zero');
  return new RRange(int('range', a, 0), int('range', a, 1), false, s);
});
def('start', 1, 1, (_c, a) => {
  if (a[0] instanceof RRange) return a[0].from;
  throw noOverload('start', a);
});
def('end', 1, 1, (_c, a) => {
  if (a[0] instanceof RRange) return a[0].to;
  throw noOverload('end', a);
});
def('is_inclusive', 1, 1, (_c, a) => {
  if (a[0] instanceof RRange) return a[0].incl;
  throw noOverload('is_inclusive', a);
});
def('to_json', 1, 1, (c, a) => checkString(c, JSON.stringify(toJson(a[0]))));
def('to_char', 1, 1, (_c, a) => {
  const n = Number(int('to_char', a, 0));
  if (n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff))
    throw new RhaiError('ErrorArithmetic', `Invalid char code: ${n}`);
  return new RChar(String.fromCodePoint(n));
});
