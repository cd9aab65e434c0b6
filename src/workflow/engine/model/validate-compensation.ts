import type { Problems } from './problems.js';
import type { ElementModel, ProcessModel } from './types.js';

/**
 * Checks the rules of compensation and transactions: a compensation boundary event has no outgoing
 * flow; a compensation throw's `activityRef` names an activity of a scope it compensates; a cancel
 * end event is directly inside a transaction, which then has a cancel boundary event; a cancel
 * boundary event is attached to a transaction, interrupts it, and is its only one (as Camunda 7).
 */
export function checkCompensationAndCancel(model: ProcessModel, problems: Problems): void {
  for (const element of Object.values(model.elements)) {
    if (!('eventDefinition' in element)) continue;
    const definition = element.eventDefinition;
    if (definition === undefined) continue;
    if (definition.kind === 'compensate') checkCompensate(element, definition.activityRef, model, problems);
    if (definition.kind === 'cancel') checkCancel(element, model, problems);
  }
}

function checkCompensate(
  element: ElementModel,
  activityRef: string | null,
  model: ProcessModel,
  problems: Problems,
): void {
  if (element.type === 'boundaryEvent' && element.outgoing.length > 0) {
    problems.add(
      element.id,
      `compensation boundary event '${element.id}' must not have outgoing sequence flows`,
    );
  }
  if (activityRef === null || (element.type !== 'intermediateThrowEvent' && element.type !== 'endEvent'))
    return;
  const target = model.elements[activityRef];
  const scopeIds = compensatedScopesOf(element, model);
  if (target === undefined || !('boundaryEventIds' in target) || !scopeIds.includes(target.parentId)) {
    problems.add(
      element.id,
      `compensation event '${element.id}' names activity '${activityRef}', which is not an activity of the scope it compensates`,
    );
  }
}

/**
 * The scopes whose activities a compensation throw compensates: its own and, from inside an event
 * sub-process, the scopes around it up to the first that is not an event sub-process.
 */
export function compensatedScopesOf(element: ElementModel, model: ProcessModel): string[] {
  const scopes = [element.parentId];
  for (
    let scope = model.elements[element.parentId];
    scope?.type === 'subProcess' && scope.triggeredByEvent;
  ) {
    scopes.push(scope.parentId);
    scope = model.elements[scope.parentId];
  }
  return scopes;
}

function checkCancel(element: ElementModel, model: ProcessModel, problems: Problems): void {
  if (element.type === 'endEvent') {
    const scope = model.elements[element.parentId];
    if (scope?.type !== 'subProcess' || scope.isTransaction !== true) {
      problems.add(
        element.id,
        `cancel end event '${element.id}' is only allowed directly inside a transaction`,
      );
      return;
    }
    if (cancelBoundariesOf(scope, model).length === 0) {
      problems.add(
        element.id,
        `cancel end event '${element.id}' needs a cancel boundary event on transaction '${scope.id}'`,
      );
    }
  }
  if (element.type === 'boundaryEvent') {
    const host = model.elements[element.attachedTo];
    if (host?.type !== 'subProcess' || host.isTransaction !== true) {
      problems.add(element.id, `cancel boundary event '${element.id}' is only allowed on a transaction`);
    } else if (!element.cancelActivity) {
      problems.add(element.id, `cancel boundary event '${element.id}' must interrupt its transaction`);
    } else if (cancelBoundariesOf(host, model)[0] !== element.id) {
      problems.add(element.id, `transaction '${host.id}' has more than one cancel boundary event`);
    }
  }
}

function cancelBoundariesOf(
  activity: Extract<ElementModel, { type: 'subProcess' }>,
  model: ProcessModel,
): string[] {
  return activity.boundaryEventIds.filter((id) => {
    const boundary = model.elements[id];
    return boundary?.type === 'boundaryEvent' && boundary.eventDefinition.kind === 'cancel';
  });
}
