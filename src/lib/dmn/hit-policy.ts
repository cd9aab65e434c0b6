import type { CompiledUnaryTests } from './unary-tests.js';
import type { Aggregation } from './types.js';

/** The priority of an output value: the index of the first output value test it matches (lower wins). */
export function priorityOf(value: unknown, tests: CompiledUnaryTests[]): number {
  const index = tests.findIndex((test) => test.test(value, {}));
  return index === -1 ? tests.length : index;
}

/** The result of a COLLECT aggregation, or why it cannot be computed. */
export type AggregateOutcome = { value: unknown; error: null } | { value: null; error: string };

/**
 * Aggregates the outputs of a COLLECT table: COUNT counts the matched rules (0 when none), SUM adds
 * numbers, MIN and MAX pick among numbers or among strings; with no match SUM, MIN and MAX are null.
 * Null outputs are ignored by SUM, MIN and MAX.
 */
export function aggregate(aggregation: Aggregation, values: unknown[]): AggregateOutcome {
  if (aggregation === 'COUNT') return { value: values.length, error: null };
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return { value: null, error: null };
  if (aggregation === 'SUM') {
    if (!present.every((v) => typeof v === 'number')) {
      return { value: null, error: 'aggregation SUM needs number outputs' };
    }
    return { value: present.reduce((a, b) => a + b, 0), error: null };
  }
  const allNumbers = present.every((v) => typeof v === 'number');
  const allStrings = present.every((v) => typeof v === 'string');
  if (!allNumbers && !allStrings) {
    return { value: null, error: `aggregation ${aggregation} needs number or string outputs of one type` };
  }
  const sorted = [...(present as (number | string)[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { value: aggregation === 'MIN' ? sorted[0] : sorted[sorted.length - 1], error: null };
}

/** Structural equality of FEEL values: lists and contexts by content, dates and durations by their ISO form. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const iso = (v: object): unknown => (v as { iso?: unknown }).iso;
  if (iso(a) !== undefined) return iso(a) === iso(b);
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}
