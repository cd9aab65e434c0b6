import type { ModdleNode } from './moddle-node.js';
import { nsAttr, NS } from './moddle-node.js';
import type { Problems } from './problems.js';

/** The largest history time to live: Camunda's is a Java `Integer`, weft's column an `integer`. */
export const MAX_HISTORY_TIME_TO_LIVE = 2_147_483_647;

/**
 * Camunda 7's `camunda:historyTimeToLive` of a process, in days: a non-negative whole number
 * (`5`) or an ISO 8601 duration in days only (`P5D`), as Camunda's `ParseUtil` reads it; no
 * expressions. Undefined when absent or empty (the global retention then applies); any other
 * value is a problem naming the process.
 */
export function readHistoryTimeToLive(
  process: ModdleNode,
  processKey: string,
  problems: Problems,
): number | undefined {
  const raw = nsAttr(process, NS.camunda, 'historyTimeToLive')?.trim();
  if (raw === undefined || raw === '') return undefined;
  const days = /^(?:P(\d+)D|\+?(\d+))$/.exec(raw);
  const digits = days?.[1] ?? days?.[2];
  const value = digits === undefined ? Number.NaN : Number(digits);
  if (!Number.isSafeInteger(value) || value > MAX_HISTORY_TIME_TO_LIVE) {
    problems.add(
      processKey,
      `camunda:historyTimeToLive of process '${processKey}' is '${raw}': it must be a whole number of days from 0 to ${MAX_HISTORY_TIME_TO_LIVE}, written as 5 or P5D`,
    );
    return undefined;
  }
  return value;
}
