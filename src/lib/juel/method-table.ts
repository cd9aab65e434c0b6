import type { JuelContext } from './context.js';
import { JuelError } from './errors.js';
import type { JuelValue } from './values.js';

/** What a method needs besides its receiver and arguments. */
export interface MethodEnv {
  readonly context: JuelContext;
  readonly maxStringLength: number;
}

/** One allowed method: how many arguments it takes and what it does. */
export interface MethodDef<R> {
  readonly min: number;
  readonly max: number;
  readonly call: (receiver: R, args: readonly JuelValue[], env: MethodEnv) => JuelValue;
}

/** The allowed methods of one receiver type, by name. */
export type MethodTable<R> = Readonly<Record<string, MethodDef<R>>>;

/** A method of a fixed number of arguments. */
export function method<R>(
  arity: number,
  call: (receiver: R, args: readonly JuelValue[], env: MethodEnv) => JuelValue,
): MethodDef<R> {
  return { min: arity, max: arity, call };
}

/** A method of `min` to `max` arguments. */
export function methodOf<R>(
  min: number,
  max: number,
  call: (receiver: R, args: readonly JuelValue[], env: MethodEnv) => JuelValue,
): MethodDef<R> {
  return { min, max, call };
}

/** The i-th argument (null when absent; the arity was checked before the call). */
export function arg(args: readonly JuelValue[], i: number): JuelValue {
  return args[i] ?? null;
}

/** A built string, refused when longer than the limit. */
export function bounded(text: string, env: MethodEnv): string {
  if (text.length > env.maxStringLength) throw tooLong(env.maxStringLength);
  return text;
}

/** The error for a string past the limit. */
export function tooLong(max: number): JuelError {
  return new JuelError(`The expression builds a string longer than ${max} characters`);
}
