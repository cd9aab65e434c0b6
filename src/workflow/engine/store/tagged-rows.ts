/*
 * Rows of engine effects tagged with the instance they belong to, and their columns as the array
 * parameters of an `unnest(...)` (see unnestParams), so one CTE writes the rows of many instances.
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
