/*
 * Rows of engine effects tagged with the instance they belong to, so one CTE of a set-wise write
 * (set-wise-write.ts) writes the rows of many instances and keeps each to its instance's guard.
 */

/** The instance whose effects are written. */
export interface EffectTarget {
  instanceId: string;
  orgId: string;
  processKey: string;
  /** The engine call's time (ISO), for rows the engine does not stamp itself. */
  now: string;
}

/** A row to write, with the instance (and its org, key and call time) it belongs to. */
export type Tagged<T> = EffectTarget & { item: T };
