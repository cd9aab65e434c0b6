import type { ModdleNode } from './moddle-node.js';
import { child, str } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { ElementModel, ProcessModel } from './types.js';

/**
 * Wires compensation handlers: an association from a compensation boundary event to an activity
 * marked `isForCompensation` makes that activity the handler of the boundary event's host
 * (`compensationHandlerId`). Records a problem for a compensation boundary event without exactly
 * one handler, an association to an activity that is not a handler, a handler nothing attaches, and
 * a handler with flows or boundary events.
 */
export function attachCompensationHandlers(
  associations: readonly ModdleNode[],
  model: ProcessModel,
  problems: Problems,
): void {
  const handlerOf = new Map<string, string[]>();
  for (const association of associations) {
    const ends = [refId(association, 'sourceRef'), refId(association, 'targetRef')];
    const boundary = ends.map((id) => model.elements[id ?? '']).find(isCompensationBoundary);
    if (boundary === undefined) continue;
    const handlerId = ends.find((id) => id !== boundary.id) ?? null;
    if (handlerId === null) continue;
    handlerOf.set(boundary.id, [...(handlerOf.get(boundary.id) ?? []), handlerId]);
  }
  const attached = new Set<string>();
  for (const boundary of Object.values(model.elements)) {
    if (!isCompensationBoundary(boundary)) continue;
    const handlers = handlerOf.get(boundary.id) ?? [];
    const handlerId = handlers[0];
    if (handlerId === undefined || handlers.length > 1) {
      problems.add(
        boundary.id,
        `compensation boundary event '${boundary.id}' needs exactly one association to a compensation handler`,
      );
      continue;
    }
    const handler = model.elements[handlerId];
    if (handler === undefined || !('isForCompensation' in handler) || handler.isForCompensation !== true) {
      problems.add(
        boundary.id,
        `compensation boundary event '${boundary.id}' is associated with '${handlerId}', which is not an activity with isForCompensation="true"`,
      );
      continue;
    }
    const host = model.elements[boundary.attachedTo];
    if (host === undefined || !('boundaryEventIds' in host)) continue;
    if (handler.parentId !== host.parentId) {
      problems.add(handlerId, `compensation handler '${handlerId}' is not in the same scope as '${host.id}'`);
      continue;
    }
    host.compensationHandlerId = handlerId;
    attached.add(handlerId);
  }
  for (const element of Object.values(model.elements)) {
    if (!('isForCompensation' in element) || element.isForCompensation !== true) continue;
    if (element.incoming.length > 0 || element.outgoing.length > 0) {
      problems.add(
        element.id,
        `compensation handler '${element.id}' must not have incoming or outgoing sequence flows`,
      );
    } else if (element.boundaryEventIds.length > 0) {
      // A boundary event that ends the handler would leave its throw waiting for it forever.
      problems.add(element.id, `compensation handler '${element.id}' must not have boundary events`);
    } else if (!attached.has(element.id)) {
      problems.add(
        element.id,
        `compensation handler '${element.id}' is not associated with a compensation boundary event`,
      );
    }
  }
}

function isCompensationBoundary(
  element: ElementModel | undefined,
): element is Extract<ElementModel, { type: 'boundaryEvent' }> {
  return element?.type === 'boundaryEvent' && element.eventDefinition.kind === 'compensate';
}

function refId(node: ModdleNode, key: string): string | null {
  const ref = child(node, key);
  return ref === null ? null : str(ref, 'id');
}
