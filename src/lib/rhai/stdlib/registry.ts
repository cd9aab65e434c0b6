import { RhaiError } from '../errors.js';
import type { EvaluationContext } from '../evaluation-context.js';
import type { RhaiValue } from '../values.js';
import { typeOf } from '../values.js';

/**
 * A native function. `args[0]` is the receiver: a function may replace it (strings and numbers are
 * immutable in JS) and the caller writes it back to the variable it came from.
 */
export type NativeFunction = (context: EvaluationContext, args: RhaiValue[]) => RhaiValue;

/** A registered native function with the number of arguments it accepts. */
export interface Builtin {
  name: string;
  min: number;
  max: number;
  fn: NativeFunction;
}

interface Overloads {
  builtin: Builtin;
  byType: Map<string, { min: number; max: number; fn: NativeFunction }>;
}

const builtins = new Map<string, Overloads>();

/** Registers a native function that handles every argument type itself. */
export function defineFunction(name: string, min: number, max: number, fn: NativeFunction): void {
  builtins.set(name, { builtin: { name, min, max, fn }, byType: new Map() });
}

/**
 * Registers a native function for receivers (first argument) of one `type_of` type; functions of
 * the same name for other types live side by side (`len` of strings, arrays, maps, ...).
 */
export function defineFunctionFor(
  type: string,
  name: string,
  min: number,
  max: number,
  fn: NativeFunction,
): void {
  let o = builtins.get(name);
  if (!o || o.byType.size === 0) {
    const byType = new Map<string, { min: number; max: number; fn: NativeFunction }>();
    const builtin: Builtin = {
      name,
      min,
      max,
      fn: (context, args) => {
        const h = byType.get(typeOf(args[0]).replace('range=', 'range'));
        if (!h || args.length < h.min || args.length > h.max) {
          throw new RhaiError(
            'ErrorFunctionNotFound',
            `Function not found: ${name} (${args.map(typeOf).join(', ')})`,
          );
        }
        return h.fn(context, args);
      },
    };
    o = { builtin, byType };
    builtins.set(name, o);
  }
  o.byType.set(type, { min, max, fn });
  o.builtin.min = Math.min(o.builtin.min, min);
  o.builtin.max = Math.max(o.builtin.max, max);
}

/** The native function of that name, if any. */
export function lookupBuiltin(name: string): Builtin | undefined {
  return builtins.get(name)?.builtin;
}
