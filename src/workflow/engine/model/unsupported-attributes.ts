import type { ModdleNode } from './moddle-node.js';
import { bool, child, list, str } from './moddle-node.js';
import type { Problems } from './problems.js';

/**
 * Records a problem for each attribute of a flow node that BPMN gives execution semantics weft
 * does not implement, so a model relying on one is refused instead of silently run otherwise
 * (Camunda 7 ignores them all):
 * - `startQuantity` / `completionQuantity` other than 1 on an activity (BPMN 2.0.2 §13.2: wait for
 *   that many tokens, leave with that many on each flow); weft moves one token in and one out.
 *   Moddle reads an absent attribute as its default, 1.
 * - a multi-instance `behavior` that throws events as instances complete (`None` with a
 *   `noneBehaviorEventRef`, `One` with a `oneBehaviorEventRef`, `Complex` with
 *   `complexBehaviorDefinition`s, §13.3.7); weft throws none, which is the default `All`.
 * - an event-based gateway that instantiates the process (`instantiate="true"`) or is `Parallel`
 *   (§13.3.5, both only for starting a process); weft starts at a start event and runs an
 *   event-based gateway as exclusive.
 */
export function checkUnsupportedAttributes(node: ModdleNode, id: string, problems: Problems): void {
  if (node.$type === 'bpmn:EventBasedGateway') {
    if (bool(node, 'instantiate', false) || str(node, 'eventGatewayType') === 'Parallel') {
      problems.add(
        id,
        `event-based gateway '${id}' that instantiates the process or is parallel is not supported`,
      );
    }
    return;
  }
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
