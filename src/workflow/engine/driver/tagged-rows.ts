import type { EffectTarget } from './effects-writer.js';

/*
 * Rows of engine effects tagged with the instance they belong to, and their columns as the array
 * parameters of an `unnest(...)` (see unnestParams), so one CTE writes the rows of many instances.
 */

/** A row to write, with the instance (and its org, key and call time) it belongs to. */
export type Tagged<T> = EffectTarget & { item: T };

/** A column of tagged rows for {@link unnestParams}: one value per row and its element type. */
export function columnOf<T>(
  rows: readonly Tagged<T>[],
  pick: (item: T) => unknown,
  type: string,
): readonly [unknown[], string] {
  return [rows.map((row) => pick(row.item)), type];
}

/** The instance ids of tagged rows, as a uuid column. */
export function instanceIds<T>(rows: readonly Tagged<T>[]): readonly [unknown[], string] {
  return [rows.map((row) => row.instanceId), 'uuid'];
}

/** The org ids of tagged rows, as a uuid column. */
export function orgIds<T>(rows: readonly Tagged<T>[]): readonly [unknown[], string] {
  return [rows.map((row) => row.orgId), 'uuid'];
}

/** The engine call times of tagged rows, as a timestamptz column. */
export function nows<T>(rows: readonly Tagged<T>[]): readonly [unknown[], string] {
  return [rows.map((row) => row.now), 'timestamptz'];
}
