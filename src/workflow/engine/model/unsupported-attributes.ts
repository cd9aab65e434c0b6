import type { ModdleNode } from './moddle-node.js';
import { bool, str } from './moddle-node.js';
import type { Problems } from './problems.js';

/**
 * Records a problem for each attribute of a flow node that BPMN gives execution semantics weft
 * does not implement, so a model relying on one is refused instead of silently run otherwise
 * (`startQuantity`/`completionQuantity` and multi-instance behaviours are checked with activities,
 * in `build-element.ts` and `multi-instance.ts`):
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
  }
}
