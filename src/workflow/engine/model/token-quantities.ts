import type { ModdleNode } from './moddle-node.js';
import type { Problems } from './problems.js';

/**
 * Records a problem when an activity's `startQuantity` or `completionQuantity` is not 1. BPMN
 * 2.0.2 §13.2 makes an activity wait for that many tokens, or leave with that many on each flow;
 * weft, like Camunda 7, moves one token in and one out, so any other value would be silently
 * ignored. Moddle reads an absent attribute as its default, 1.
 */
export function checkTokenQuantities(node: ModdleNode, id: string, problems: Problems): void {
  for (const attribute of ['startQuantity', 'completionQuantity'] as const) {
    const value = node[attribute];
    if (value === undefined || value === 1) continue;
    problems.add(id, `${attribute} ${JSON.stringify(value)} on '${id}' is not supported; only 1 is`);
  }
}
