import { RhaiError } from '../errors.js';
import type { RValue } from '../values.js';
import { FnPtr, RChar, RFloat, typeOf } from '../values.js';

/** Error for a native function called with argument types it has no overload for. */
export function noOverload(name: string, args: readonly RValue[]): RhaiError {
  return new RhaiError(
    'ErrorFunctionNotFound',
    `Function not found: ${name} (${args.map(typeOf).join(', ')})`,
  );
}

/** The argument as an INT or a "function not found" error. */
export function int(name: string, args: readonly RValue[], i: number): number | bigint {
  const v = args[i];
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  throw noOverload(name, args);
}

/** The argument as a JS number (INT or FLOAT). */
export function numArg(name: string, args: readonly RValue[], i: number): number {
  const v = args[i];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof RFloat) return v.v;
  throw noOverload(name, args);
}

/** The argument as a string (a char is accepted). */
export function str(name: string, args: readonly RValue[], i: number): string {
  const v = args[i];
  if (typeof v === 'string') return v;
  if (v instanceof RChar) return v.c;
  throw noOverload(name, args);
}

/** The argument as a function pointer. */
export function fnPtr(name: string, args: readonly RValue[], i: number): FnPtr {
  const v = args[i];
  if (v instanceof FnPtr) return v;
  throw noOverload(name, args);
}

/** An INT argument clamped into the safe JS range (for lengths and positions). */
export function pos(name: string, args: readonly RValue[], i: number): number {
  const v = int(name, args, i);
  return typeof v === 'number' ? v : v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
}
