import { feelExpression, staticValue } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { bodyOf, bool, child, extension, genericAttr, list, nsAttr, NS, str } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { MultiInstanceModel } from './types.js';

/**
 * Reads an activity's multi-instance loop characteristics from BPMN (`isSequential`,
 * `loopCardinality`, `completionCondition`), Zeebe `zeebe:loopCharacteristics` and Camunda
 * `camunda:collection` / `camunda:elementVariable`. Returns null when the activity has no
 * multi-instance loop (a standard loop is read by `readStandardLoop`) (or after recording a problem).
 */
export function readMultiInstance(
  node: ModdleNode,
  elementId: string,
  problems: Problems,
): MultiInstanceModel | null {
  const loop = child(node, 'loopCharacteristics');
  if (loop === null) return null;
  if (loop.$type !== 'bpmn:MultiInstanceLoopCharacteristics') return null;
  // A behavior that throws events as instances complete (BPMN 2.0.2 §13.3.7): Camunda 7 and Zeebe
  // ignore it; running the instances without the events would silently change the model's meaning,
  // so it is refused. `None`/`One` without their event throw nothing, like the default `All`.
  const behavior = str(loop, 'behavior') ?? 'All';
  const throwsEvents =
    (behavior === 'None' && child(loop, 'noneBehaviorEventRef') !== null) ||
    (behavior === 'One' && child(loop, 'oneBehaviorEventRef') !== null) ||
    (behavior === 'Complex' && list(loop, 'complexBehaviorDefinition').length > 0);
  if (throwsEvents) {
    problems.add(
      elementId,
      `multi-instance behavior '${behavior}' of '${elementId}' throws events as instances complete, which is not supported`,
    );
  }
  const site = (what: string) => ({ problems, elementId, what: `multi-instance ${what}` });
  const expression = (raw: string | null, what: string) =>
    raw === null ? null : feelExpression(raw, site(what));
  const name = (raw: string | null, what: string) => (raw === null ? null : staticValue(raw, site(what)));

  const zeebe = extension(loop, NS.zeebe, 'loopCharacteristics');
  const collection =
    (zeebe && genericAttr(zeebe, 'inputCollection')) ?? nsAttr(loop, NS.camunda, 'collection');
  const cardinality = bodyOf(child(loop, 'loopCardinality'));
  if (collection === null && cardinality === null) {
    problems.add(
      elementId,
      `multi-instance '${elementId}' has neither an input collection nor a loop cardinality`,
    );
    return null;
  }
  const model: MultiInstanceModel = {
    isSequential: bool(loop, 'isSequential', false),
    inputCollection: expression(collection, 'input collection'),
    inputElement: name(
      (zeebe && genericAttr(zeebe, 'inputElement')) ?? nsAttr(loop, NS.camunda, 'elementVariable'),
      'input element',
    ),
    outputCollection: name(zeebe && genericAttr(zeebe, 'outputCollection'), 'output collection'),
    outputElement: expression(zeebe && genericAttr(zeebe, 'outputElement'), 'output element'),
    loopCardinality: expression(cardinality, 'loop cardinality'),
    completionCondition: expression(bodyOf(child(loop, 'completionCondition')), 'completion condition'),
  };
  if ((model.outputCollection === null) !== (model.outputElement === null)) {
    problems.add(
      elementId,
      `multi-instance '${elementId}' needs both an output collection and an output element`,
    );
  }
  return model;
}
