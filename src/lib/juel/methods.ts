/**
 * The method allow-list: the only methods an expression can call, per receiver type. A name in no
 * table does not compile; a name the receiver's type lacks is an evaluation error. Arguments are
 * coerced as Java would coerce them to the parameter types (an index to int, a text to String).
 */
import type { RE2JS } from 're2js';
import { compileRe2, Re2PatternError } from '../re2/re2-pattern.js';
import { javaDoubleText, javaEquals, javaTrim, toInt, toText, doubleToLong } from './coercion.js';
import { DATE_METHODS, DATE_TIME_METHODS } from './date-methods.js';
import { JuelError } from './errors.js';
import { ExecutionObject, TaskObject } from './host-objects.js';
import { EXECUTION_METHODS, TASK_METHODS } from './host-members.js';
import type { MethodDef, MethodEnv, MethodTable } from './method-table.js';
import { arg, bounded, method, methodOf, tooLong } from './method-table.js';
import type { JuelMap, JuelTypeName, JuelValue } from './values.js';
import { fromJson, mapEntry, typeName } from './values.js';

function regex(pattern: JuelValue): RE2JS {
  const text = toText(pattern);
  try {
    return compileRe2(text);
  } catch (error) {
    if (error instanceof Re2PatternError) throw new JuelError(error.message);
    throw error;
  }
}

function outOfBounds(what: string, index: number, length: number): JuelError {
  return new JuelError(`${what} index ${index} is out of bounds for length ${length}`);
}

// String.replace(target, replacement): every occurrence, literally; an empty target matches between
// every two characters. The result's length is known before it is built.
function replaceLiteral(s: string, target: string, replacement: string, env: MethodEnv): string {
  const count = target === '' ? s.length + 1 : s.split(target).length - 1;
  if (s.length + count * (replacement.length - target.length) > env.maxStringLength) {
    throw tooLong(env.maxStringLength);
  }
  return s.replaceAll(target, () => replacement);
}

// Matcher.replaceAll/replaceFirst with Java's replacement syntax: `$n` and `${name}` insert a group,
// `\x` is x. Built piece by piece so that a growing result stops at the limit.
function replaceRegex(
  s: string,
  pattern: JuelValue,
  replacement: string,
  all: boolean,
  env: MethodEnv,
): string {
  const matcher = regex(pattern).matcher(s);
  let out = '';
  let last = 0;
  while (matcher.find()) {
    out += s.slice(last, matcher.start()) + expandReplacement(replacement, matcher);
    if (out.length > env.maxStringLength) throw tooLong(env.maxStringLength);
    last = matcher.end();
    if (!all) break;
  }
  return bounded(out + s.slice(last), env);
}

interface GroupSource {
  group(group?: number | string): string | null;
  groupCount(): number;
}

function expandReplacement(replacement: string, matcher: GroupSource): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i]!;
    if (ch === '\\') {
      i++;
      if (i >= replacement.length) throw new JuelError('A replacement ends with a lone backslash');
      out += replacement[i];
    } else if (ch === '$') {
      const named = /^\{([A-Za-z][A-Za-z0-9]*)\}/.exec(replacement.slice(i + 1));
      if (named !== null) {
        out += groupText(matcher, named[1]!);
        i += named[0].length;
        continue;
      }
      const first = replacement[i + 1] ?? '';
      if (!/\d/.test(first)) throw new JuelError(`Illegal group reference in replacement '${replacement}'`);
      let digits: string = first;
      // Java takes further digits while the number stays a valid group.
      while (/\d/.test(replacement[i + 1 + digits.length] ?? '')) {
        const longer: string = digits + replacement[i + 1 + digits.length]!;
        if (Number(longer) > matcher.groupCount()) break;
        digits = longer;
      }
      if (Number(digits) > matcher.groupCount()) throw new JuelError(`No group ${digits} in the pattern`);
      out += matcher.group(Number(digits)) ?? '';
      i += digits.length;
    } else {
      out += ch;
    }
  }
  return out;
}

function groupText(matcher: GroupSource, name: string): string {
  try {
    return matcher.group(name) ?? '';
  } catch {
    throw new JuelError(`No group named '${name}' in the pattern`);
  }
}

function equalsIgnoreCase(a: string, b: string): boolean {
  return (
    a.length === b.length && (a.toUpperCase() === b.toUpperCase() || a.toLowerCase() === b.toLowerCase())
  );
}

const STRING_METHODS: MethodTable<string> = {
  contains: method(1, (s, a) => s.includes(toText(arg(a, 0)))),
  startsWith: methodOf(1, 2, (s, a) => {
    const prefix = toText(arg(a, 0));
    const offset = a.length > 1 ? toInt(arg(a, 1)) : 0;
    return offset >= 0 && offset <= s.length - prefix.length && s.startsWith(prefix, offset);
  }),
  endsWith: method(1, (s, a) => s.endsWith(toText(arg(a, 0)))),
  equals: method(1, (s, a) => javaEquals(s, arg(a, 0))),
  equalsIgnoreCase: method(1, (s, a) => arg(a, 0) !== null && equalsIgnoreCase(s, toText(arg(a, 0)))),
  isEmpty: method(0, (s) => s.length === 0),
  length: method(0, (s) => BigInt(s.length)),
  toLowerCase: method(0, (s) => s.toLowerCase()),
  toUpperCase: method(0, (s) => s.toUpperCase()),
  trim: method(0, (s) => javaTrim(s)),
  substring: methodOf(1, 2, (s, a) => {
    const begin = toInt(arg(a, 0));
    const end = a.length > 1 ? toInt(arg(a, 1)) : s.length;
    if (begin < 0 || end > s.length || begin > end) {
      throw new JuelError(`substring(${begin}, ${end}) is out of bounds for length ${s.length}`);
    }
    return s.slice(begin, end);
  }),
  indexOf: methodOf(1, 2, (s, a) =>
    BigInt(s.indexOf(toText(arg(a, 0)), a.length > 1 ? Math.max(0, toInt(arg(a, 1))) : 0)),
  ),
  lastIndexOf: methodOf(1, 2, (s, a) => {
    const from = a.length > 1 ? toInt(arg(a, 1)) : s.length;
    return from < 0 ? -1n : BigInt(s.lastIndexOf(toText(arg(a, 0)), from));
  }),
  replace: method(2, (s, a, env) => replaceLiteral(s, toText(arg(a, 0)), toText(arg(a, 1)), env)),
  replaceAll: method(2, (s, a, env) => replaceRegex(s, arg(a, 0), toText(arg(a, 1)), true, env)),
  replaceFirst: method(2, (s, a, env) => replaceRegex(s, arg(a, 0), toText(arg(a, 1)), false, env)),
  matches: method(1, (s, a) => regex(arg(a, 0)).matches(s)),
  split: methodOf(1, 2, (s, a) => regex(arg(a, 0)).split(s, a.length > 1 ? toInt(arg(a, 1)) : 0)),
  charAt: method(1, (s, a) => {
    const index = toInt(arg(a, 0));
    if (index < 0 || index >= s.length) throw outOfBounds('String', index, s.length);
    return s[index]!;
  }),
  concat: method(1, (s, a, env) => bounded(s + toText(arg(a, 0)), env)),
  toString: method<string>(0, (s) => s),
};

function listIndexOf(list: readonly unknown[], target: JuelValue): number {
  return list.findIndex((item) => javaEquals(fromJson(item), target));
}

const LIST_METHODS: MethodTable<readonly unknown[]> = {
  size: method(0, (l) => BigInt(l.length)),
  isEmpty: method(0, (l) => l.length === 0),
  contains: method(1, (l, a) => listIndexOf(l, arg(a, 0)) >= 0),
  get: method(1, (l, a) => {
    const index = toInt(arg(a, 0));
    if (index < 0 || index >= l.length) throw outOfBounds('List', index, l.length);
    return fromJson(l[index]);
  }),
  indexOf: method(1, (l, a) => BigInt(listIndexOf(l, arg(a, 0)))),
  lastIndexOf: method(1, (l, a) => {
    for (let i = l.length - 1; i >= 0; i--) if (javaEquals(fromJson(l[i]), arg(a, 0))) return BigInt(i);
    return -1n;
  }),
  equals: method(1, (l, a) => javaEquals(l, arg(a, 0))),
  toString: method<readonly unknown[]>(0, (l, _a, env) => bounded(toText(l), env)),
};

// Keys of JSON objects are Strings; any other key is looked up by its String form.
function mapKey(value: JuelValue): string {
  return toText(value);
}

const MAP_METHODS: MethodTable<JuelMap> = {
  size: method(0, (m) => BigInt(Object.keys(m).length)),
  isEmpty: method(0, (m) => Object.keys(m).length === 0),
  containsKey: method(1, (m, a) => arg(a, 0) !== null && mapEntry(m, mapKey(arg(a, 0))) !== undefined),
  containsValue: method(1, (m, a) => Object.values(m).some((v) => javaEquals(fromJson(v), arg(a, 0)))),
  get: method(1, (m, a) => (arg(a, 0) === null ? null : fromJson(mapEntry(m, mapKey(arg(a, 0)))))),
  keySet: method(0, (m) => Object.keys(m)),
  values: method(0, (m) => Object.values(m)),
  equals: method(1, (m, a) => javaEquals(m, arg(a, 0))),
  toString: method<JuelMap>(0, (m, _a, env) => bounded(toText(m), env)),
};

// Java's (int) cast of a double: toward zero, saturating, NaN is 0.
function doubleToInt(value: number): number {
  return Number(BigInt.asIntN(32, doubleToLong(Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, value)))));
}

const LONG_METHODS: MethodTable<bigint> = {
  intValue: method(0, (n) => BigInt.asIntN(32, n)),
  longValue: method(0, (n) => n),
  doubleValue: method(0, (n) => Number(n)),
  toString: method<bigint>(0, (n) => n.toString()),
  equals: method(1, (n, a) => javaEquals(n, arg(a, 0))),
};

const DOUBLE_METHODS: MethodTable<number> = {
  intValue: method(0, (n) => BigInt(doubleToInt(n))),
  longValue: method(0, (n) => doubleToLong(n)),
  doubleValue: method(0, (n) => n),
  toString: method<number>(0, (n) => javaDoubleText(n)),
  equals: method(1, (n, a) => javaEquals(n, arg(a, 0))),
};

const BOOLEAN_METHODS: MethodTable<boolean> = {
  booleanValue: method(0, (b) => b),
  toString: method<boolean>(0, (b) => String(b)),
  equals: method(1, (b, a) => javaEquals(b, arg(a, 0))),
};

const TABLES: Readonly<Record<Exclude<JuelTypeName, 'Null'>, MethodTable<never>>> = {
  String: STRING_METHODS,
  List: LIST_METHODS,
  Map: MAP_METHODS,
  Long: LONG_METHODS,
  Double: DOUBLE_METHODS,
  Boolean: BOOLEAN_METHODS,
  Date: DATE_METHODS,
  DateTime: DATE_TIME_METHODS,
  Execution: EXECUTION_METHODS,
  Task: TASK_METHODS,
};

/** The allowed method names of each receiver type (for documentation and hosts). */
export const JUEL_METHODS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(
    Object.entries(TABLES).map(([type, table]) => [type, Object.freeze(Object.keys(table).sort())]),
  ),
);

/** Every allowed method name, whatever the receiver: a call to any other name does not compile. */
export const ALLOWED_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(JUEL_METHODS).flat());

/** Calls an allowed method; an error when the receiver is null or its type lacks the method. */
export function invokeMethod(
  receiver: JuelValue,
  name: string,
  args: readonly JuelValue[],
  env: MethodEnv,
): JuelValue {
  if (receiver === null) throw new JuelError(`Cannot call ${name}() on null`);
  const type = typeName(receiver) as Exclude<JuelTypeName, 'Null'>;
  const table = TABLES[type] as MethodTable<JuelValue>;
  const def: MethodDef<JuelValue> | undefined = Object.prototype.hasOwnProperty.call(table, name)
    ? table[name]
    : undefined;
  if (def === undefined) throw new JuelError(`Method ${name}() not found on ${describeType(receiver)}`);
  if (args.length < def.min || args.length > def.max) {
    const expected = def.min === def.max ? `${def.min}` : `${def.min} or ${def.max}`;
    throw new JuelError(
      `Method ${name}() of ${describeType(receiver)} takes ${expected} argument(s), not ${args.length}`,
    );
  }
  return def.call(receiver, args, env);
}

function describeType(value: JuelValue): string {
  if (value instanceof ExecutionObject) return 'execution';
  if (value instanceof TaskObject) return 'task';
  return `type ${typeName(value)}`;
}
