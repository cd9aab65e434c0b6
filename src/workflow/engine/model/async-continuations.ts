import { parseIsoDuration, approximateMillis } from '../schedule/iso-duration.js';
import { bodyOf, child, extension, NS, nsAttr, type ModdleNode } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { AsyncContinuations, JobRetryCycle } from './types.js';

/**
 * Camunda 7's default when a model gives no `camunda:failedJobRetryTimeCycle`: three attempts in
 * all, the retries due at once.
 */
export const defaultJobRetryCycle: JobRetryCycle = { retries: 2, intervalsMs: [0] };

// More would park a failing job for years or retry it without end; Camunda's models use a handful.
const MAX_RETRIES = 100;
const MAX_INTERVAL_MS = 366 * 86_400_000;

function flag(node: ModdleNode, name: string, problems: Problems, id: string): boolean {
  const raw = nsAttr(node, NS.camunda, name);
  if (raw === null) return false;
  const text = raw.trim().toLowerCase();
  if (text === 'true') return true;
  if (text !== 'false') problems.add(id, `camunda:${name} of '${id}' must be true or false, not '${raw}'`);
  return false;
}

/**
 * The asynchronous continuations of a flow node: `camunda:asyncBefore` (or the older
 * `camunda:async`) and `camunda:asyncAfter` on the element, and the same on its multi-instance loop
 * characteristics (before and after each instance). Null when the element has none.
 * `camunda:exclusive` needs no reading: weft never runs two calls of one instance at once.
 */
export function readAsyncContinuations(
  node: ModdleNode,
  id: string,
  problems: Problems,
): AsyncContinuations | null {
  const loop = child(node, 'loopCharacteristics');
  const multiInstance = loop?.$type === 'bpmn:MultiInstanceLoopCharacteristics' ? loop : null;
  const continuations: AsyncContinuations = {
    before: flag(node, 'asyncBefore', problems, id) || flag(node, 'async', problems, id),
    after: flag(node, 'asyncAfter', problems, id),
    instanceBefore: multiInstance !== null && flag(multiInstance, 'asyncBefore', problems, id),
    instanceAfter: multiInstance !== null && flag(multiInstance, 'asyncAfter', problems, id),
  };
  return Object.values(continuations).some(Boolean) ? continuations : null;
}

/**
 * The element's `camunda:failedJobRetryTimeCycle` (on the element, or on its multi-instance loop
 * characteristics): `R<n>/<duration>` — n retries after the first attempt, each after the duration
 * — or a comma-separated list of durations, one retry after each. Null when not given or invalid
 * (a problem is recorded); expressions are refused, as a cycle is read when the model is deployed.
 */
export function readJobRetryCycle(node: ModdleNode, id: string, problems: Problems): JobRetryCycle | null {
  const loop = child(node, 'loopCharacteristics');
  const element =
    extension(node, NS.camunda, 'failedJobRetryTimeCycle') ??
    (loop === null ? null : extension(loop, NS.camunda, 'failedJobRetryTimeCycle'));
  if (element === null) return null;
  const text = (bodyOf(element) ?? '').trim();
  const refuse = (why: string) => {
    problems.add(id, `camunda:failedJobRetryTimeCycle '${text}' of '${id}' ${why}`);
    return null;
  };
  if (text === '') return refuse('is empty');
  if (/[$#]\{/.test(text))
    return refuse('is an expression; weft reads the cycle at deploy time: write it as R3/PT5M or PT1M,PT5M');
  const repeat = /^R(\d+)\/([^,]+)$/i.exec(text);
  const parts = repeat === null ? text.split(',').map((part) => part.trim()) : [repeat[2] ?? ''];
  const intervalsMs: number[] = [];
  for (const part of parts) {
    try {
      const millis = approximateMillis(parseIsoDuration(part));
      if (millis > MAX_INTERVAL_MS) return refuse(`waits more than a year (${part})`);
      intervalsMs.push(Math.round(millis));
    } catch {
      return refuse(
        `is neither R<n>/<duration> nor a list of ISO 8601 durations ('${part}' is not a duration)`,
      );
    }
  }
  const retries = repeat === null ? intervalsMs.length : Number(repeat[1]);
  if (retries > MAX_RETRIES) return refuse(`asks for more than ${MAX_RETRIES} retries`);
  return { retries, intervalsMs };
}
