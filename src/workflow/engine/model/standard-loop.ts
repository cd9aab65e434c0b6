import { feelExpression } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { bodyOf, bool, child } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { StandardLoopModel } from './types.js';

/**
 * Reads an activity's `standardLoopCharacteristics` (BPMN 13.2.2.1): the FEEL `loopCondition`,
 * `testBefore` (default false: the activity runs at least once) and `loopMaximum`. Returns null when
 * the activity has no standard loop (or after recording a problem).
 */
export function readStandardLoop(
  node: ModdleNode,
  elementId: string,
  problems: Problems,
): StandardLoopModel | null {
  const loop = child(node, 'loopCharacteristics');
  if (loop === null || loop.$type !== 'bpmn:StandardLoopCharacteristics') return null;
  const raw = bodyOf(child(loop, 'loopCondition'));
  const loopCondition =
    raw === null ? null : feelExpression(raw, { problems, elementId, what: 'loop condition' });
  const maximum: unknown = loop.loopMaximum;
  let loopMaximum: number | null = null;
  if (typeof maximum === 'number' || typeof maximum === 'string') {
    const value = Number(maximum);
    if (!Number.isInteger(value) || value < 0) {
      problems.add(
        elementId,
        `loopMaximum of '${elementId}' must be a whole number, not '${String(maximum)}'`,
      );
      return null;
    }
    loopMaximum = value;
  }
  if (raw === null && loopMaximum === null) {
    problems.add(elementId, `standard loop of '${elementId}' has neither a loopCondition nor a loopMaximum`);
    return null;
  }
  return { loopCondition, testBefore: bool(loop, 'testBefore', false), loopMaximum };
}
