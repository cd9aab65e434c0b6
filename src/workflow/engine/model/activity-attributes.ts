import type { ModdleNode } from './moddle-node.js';
import { child, list, str } from './moddle-node.js';
import type { Problems } from './problems.js';

/**
 * Records a problem for each attribute of an activity that BPMN gives execution semantics weft
 * does not implement, so a model relying on one is refused instead of silently run otherwise
 * (Camunda 7 ignores them all):
 * - `startQuantity` / `completionQuantity` other than 1 (BPMN 2.0.2 §13.2: wait for that many
 *   tokens, leave with that many on each flow); weft moves one token in and one out. Moddle reads
 *   an absent attribute as its default, 1.
 * - a multi-instance `behavior` that throws events as instances complete (`None` with a
 *   `noneBehaviorEventRef`, `One` with a `oneBehaviorEventRef`, `Complex` with
 *   `complexBehaviorDefinition`s, §13.3.7); weft throws none, which is the default `All`.
 */
export function checkActivityAttributes(node: ModdleNode, id: string, problems: Problems): void {
  for (const attribute of ['startQuantity', 'completionQuantity'] as const) {
    const value = node[attribute];
    if (value === undefined || value === 1) continue;
    problems.add(id, `${attribute} ${JSON.stringify(value)} on '${id}' is not supported; only 1 is`);
  }
  const loop = child(node, 'loopCharacteristics');
  if (loop?.$type !== 'bpmn:MultiInstanceLoopCharacteristics') return;
  const behavior = str(loop, 'behavior') ?? 'All';
  const throwsEvents =
    (behavior === 'None' && child(loop, 'noneBehaviorEventRef') !== null) ||
    (behavior === 'One' && child(loop, 'oneBehaviorEventRef') !== null) ||
    (behavior === 'Complex' && list(loop, 'complexBehaviorDefinition').length > 0);
  if (throwsEvents) {
    problems.add(
      id,
      `multi-instance behavior '${behavior}' of '${id}' throws events as instances complete, which is not supported`,
    );
  }
}
