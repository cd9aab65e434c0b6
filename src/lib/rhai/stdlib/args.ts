import { RhaiError } from '../errors.js';
import type { RhaiValue } from '../values.js';
import { FunctionPointer, RhaiChar, RhaiFloat, typeOf } from '../values.js';

/** Error for a native function called with argument types it has no overload for. */
export function noOverload(name: string, args: readonly RhaiValue[]): RhaiError {
  return new RhaiError(
    'ErrorFunctionNotFound',
    `Function not found: ${name} (${args.map(typeOf).join(', ')})`,
  );
}

/** The argument as an INT or a "function not found" error. */
export function intArgument(name: string, args: readonly RhaiValue[], i: number): number | bigint {
  const v = args[i];
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  throw noOverload(name, args);
}

/** The argument as a JS number (INT or FLOAT). */
export function numberArgument(name: string, args: readonly RhaiValue[], i: number): number {
  const v = args[i];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof RhaiFloat) return v.value;
  throw noOverload(name, args);
}

/** The argument as a string (a char is accepted). */
export function stringArgument(name: string, args: readonly RhaiValue[], i: number): string {
  const v = args[i];
  if (typeof v === 'string') return v;
  if (v instanceof RhaiChar) return v.value;
  throw noOverload(name, args);
}

/**
 * The argument as a function pointer. With `byName`, a string names the function instead (Rhai's
 * deprecated `array.map("fn_name")` forms of map, filter, some, all, reduce, sort, drain, retain, ...).
 */
export function functionPointerArgument(
  name: string,
  args: readonly RhaiValue[],
  i: number,
  byName = false,
): FunctionPointer {
  const v = args[i];
  if (v instanceof FunctionPointer) return v;
  if (byName && typeof v === 'string') return new FunctionPointer(v);
  throw noOverload(name, args);
}

/** An INT argument clamped into the safe JS range (for lengths and positions). */
export function clampedIntArgument(name: string, args: readonly RhaiValue[], i: number): number {
  const v = intArgument(name, args, i);
  return typeof v === 'number' ? v : v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
}
