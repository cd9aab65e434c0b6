import type { RhaiValue } from '../values.js';
import { RhaiRange } from '../values.js';
import { clampedIntArgument } from './args.js';

/**
 * Rhai's `calc_offset_len`: a start (negative counts from the end, clamped to the blob) and a length
 * (at most what is left after the start, 0 when not positive), as `[start, end)`.
 */
export function offsetSpan(length: number, start: number, count: number): [number, number] {
  const s = start < 0 ? length - Math.min(-start, length) : Math.min(start, length);
  const n = count <= 0 ? 0 : Math.min(count, length - s);
  return [s, s + n];
}

/**
 * A blob function's `(start, len)` or `(range)` arguments from `args[1]` as Rhai passes them on:
 * the start, the length asked for (a range's negative start counts as 0) and the index of the
 * argument after them.
 */
export function spanArguments(
  name: string,
  args: readonly RhaiValue[],
): { start: number; count: number; next: number } {
  const r = args[1];
  if (r instanceof RhaiRange) {
    const from = Math.max(0, Number(r.from));
    const to = Math.max(from, Number(r.to) + (r.inclusive ? 1 : 0));
    return { start: from, count: to - from, next: 2 };
  }
  return { start: clampedIntArgument(name, args, 1), count: clampedIntArgument(name, args, 2), next: 3 };
}

/** The `[start, end)` of a blob function's `(start, len)` or `(range)` arguments, and the next index. */
export function blobSpan(name: string, args: readonly RhaiValue[], length: number): [number, number, number] {
  const { start, count, next } = spanArguments(name, args);
  return [...offsetSpan(length, start, count), next];
}

/** A byte of an INT, as Rhai stores INTs in a blob (`value & 0xff`). */
export function byteOf(v: number | bigint): number {
  return Number(BigInt.asUintN(8, BigInt(v)));
}
