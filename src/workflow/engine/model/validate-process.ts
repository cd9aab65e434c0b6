import type { Problems } from './problems.js';
import { checkCompensationAndCancel } from './validate-compensation.js';
import type { ElementModel, EventDefinition, ProcessModel } from './types.js';

type Kind = EventDefinition['kind'];

// Which event definitions each event type may carry.
const ALLOWED_KINDS: Record<string, readonly Kind[]> = {
  intermediateCatchEvent: ['timer', 'message', 'signal', 'conditional', 'link'],
  intermediateThrowEvent: ['none', 'message', 'signal', 'escalation', 'compensate', 'link'],
  endEvent: ['none', 'terminate', 'error', 'escalation', 'message', 'signal', 'compensate', 'cancel'],
  boundaryEvent: ['timer', 'message', 'signal', 'error', 'escalation', 'conditional', 'compensate', 'cancel'],
};

/**
 * Checks the structural rules the engine relies on, recording every violation:
 * start events per scope (an instantiating receive task counts as one), incoming flows (a link
 * catch has none, a link throw no outgoing), gateway conditions and defaults (a complex join needs
 * an activation condition), event-based gateway targets, event definitions per event type, and
 * required message names / error codes. Conditions may sit on flows out of any element but a
 * parallel or event-based gateway; a default flow never has one.
 *
 * An element other than a gateway with no outgoing flow is an implicit end (as in Camunda and
 * Zeebe): its token is consumed there. A gateway with no outgoing flow is a problem, since it
 * could only be a modelling mistake.
 */
export function validateProcess(model: ProcessModel, problems: Problems): void {
  const { startEventIds } = model;
  const topStarts = model.childIds.filter((id) => {
    const element = model.elements[id];
    return element !== undefined && (element.type === 'startEvent' || isInstantiatingReceiveTask(element));
  });
  if (topStarts.length === 0)
    problems.add(model.processKey, `process '${model.processKey}' has no start event`);
  if (startEventIds.none.length > 1) {
    problems.add(model.processKey, `process '${model.processKey}' has more than one none start event`);
  }
  for (const element of Object.values(model.elements)) {
    checkIncoming(element, model.processKey, problems);
    checkEvent(element, model, problems);
    checkGateway(element, model, problems);
    if (element.type === 'subProcess') checkSubProcess(element, problems);
  }
  checkCompensationAndCancel(model, problems);
  for (const flow of Object.values(model.flows)) {
    const source = model.elements[flow.sourceId];
    // Conditions out of activities and events are taken as BPMN 13.2.1 and Camunda 7 do; a
    // parallel or event-based gateway takes every flow, so a condition there is a mistake.
    if (
      flow.condition !== null &&
      (source?.type === 'parallelGateway' || source?.type === 'eventBasedGateway')
    ) {
      problems.add(
        flow.id,
        `condition on '${flow.id}' is not allowed on a flow out of ${source.type} '${source.id}'`,
      );
    }
    if (
      flow.isDefault &&
      flow.condition !== null &&
      source !== undefined &&
      !source.type.endsWith('Gateway')
    ) {
      problems.add(flow.id, `default flow '${flow.id}' of '${source.id}' must not have a condition`);
    }
  }
}

// An instantiating receive task without incoming flows starts the process (BPMN 13.2.3).
function isInstantiatingReceiveTask(element: ElementModel): boolean {
  return element.type === 'receiveTask' && element.instantiate === true && element.incoming.length === 0;
}

function checkIncoming(element: ElementModel, processKey: string, problems: Problems): void {
  const isLinkCatch = element.type === 'intermediateCatchEvent' && element.eventDefinition.kind === 'link';
  const isEntry =
    element.type === 'startEvent' ||
    element.type === 'boundaryEvent' ||
    isLinkCatch ||
    (element.type === 'subProcess' && element.triggeredByEvent);
  if (isInstantiatingReceiveTask(element)) {
    if (element.parentId !== processKey) {
      problems.add(
        element.id,
        `receive task '${element.id}' can only instantiate the process at its top level`,
      );
    }
    return;
  }
  if (element.type === 'intermediateThrowEvent' && element.eventDefinition.kind === 'link') {
    if (element.outgoing.length > 0) {
      problems.add(element.id, `link throw event '${element.id}' must not have outgoing sequence flows`);
    }
  }
  if (isEntry && element.incoming.length > 0) {
    problems.add(element.id, `${element.type} '${element.id}' must not have incoming sequence flows`);
  }
  if (element.type === 'subProcess' && element.triggeredByEvent && element.outgoing.length > 0) {
    problems.add(element.id, `event sub-process '${element.id}' must not have outgoing sequence flows`);
  }
  // BPMN 2.0.2 §10.5.3: an end event ends its path; a flow out of it would silently carry the token on.
  if (element.type === 'endEvent' && element.outgoing.length > 0) {
    problems.add(element.id, `end event '${element.id}' must not have outgoing sequence flows`);
  }
  // A compensation handler is started by compensation only (its flows are checked with the handlers).
  const handler = 'isForCompensation' in element && element.isForCompensation === true;
  if (!isEntry && !handler && element.incoming.length === 0) {
    problems.add(element.id, `${element.type} '${element.id}' has no incoming sequence flow`);
  }
}

function checkEvent(element: ElementModel, model: ProcessModel, problems: Problems): void {
  if (!('eventDefinition' in element) || element.type === 'receiveTask') return;
  const definition = element.eventDefinition;
  const allowed = ALLOWED_KINDS[element.type];
  if (allowed !== undefined && !allowed.includes(definition.kind)) {
    const what = /^[aeiou]/.test(definition.kind) ? `an ${definition.kind}` : `a ${definition.kind}`;
    problems.add(element.id, `${element.type} '${element.id}' cannot be ${what} event`);
    return;
  }
  if (element.type === 'startEvent') checkStartKind(element, model, problems);
  const catching = element.type !== 'endEvent' && element.type !== 'intermediateThrowEvent';
  if (
    definition.kind === 'message' &&
    definition.messageName === null &&
    (catching || definition.job === null)
  ) {
    problems.add(element.id, `message event '${element.id}' has no message name`);
  }
  if (definition.kind === 'error') {
    if (!catching && definition.errorCode === null) {
      problems.add(element.id, `error end event '${element.id}' has no error code`);
    }
    if (element.type === 'boundaryEvent' && !element.cancelActivity) {
      problems.add(element.id, `error boundary event '${element.id}' must interrupt its activity`);
    }
  }
  if (definition.kind === 'escalation') checkEscalation(element, definition.escalationCode, model, problems);
}

// A throw names the escalation it raises; a boundary catch only makes sense where an escalation can
// come from: inside a sub-process, or out of a called instance (Camunda 7 allows nothing else).
function checkEscalation(
  element: ElementModel,
  escalationCode: string | null,
  model: ProcessModel,
  problems: Problems,
): void {
  if ((element.type === 'endEvent' || element.type === 'intermediateThrowEvent') && escalationCode === null) {
    problems.add(element.id, `escalation event '${element.id}' has no escalation code`);
  }
  if (element.type === 'boundaryEvent') {
    const host = model.elements[element.attachedTo];
    if (host !== undefined && host.type !== 'subProcess' && host.type !== 'callActivity') {
      problems.add(
        element.id,
        `escalation boundary event '${element.id}' must be attached to a sub-process or call activity, not ${host.type} '${host.id}'`,
      );
    }
  }
}

function checkStartKind(
  element: Extract<ElementModel, { type: 'startEvent' }>,
  model: ProcessModel,
  problems: Problems,
): void {
  const scope = model.elements[element.parentId];
  const kind = element.eventDefinition.kind;
  if (scope?.type === 'subProcess' && !scope.triggeredByEvent && kind !== 'none') {
    problems.add(
      element.id,
      `start event '${element.id}' of embedded sub-process '${scope.id}' must be a none start event`,
    );
  }
  if (scope?.type === 'subProcess' && scope.triggeredByEvent) {
    if (kind === 'none') {
      problems.add(
        element.id,
        `start event '${element.id}' of event sub-process '${scope.id}' needs a trigger`,
      );
    } else if (kind === 'error' && !element.isInterrupting) {
      problems.add(element.id, `error start event '${element.id}' must be interrupting`);
    } else if (kind === 'terminate' || kind === 'cancel') {
      problems.add(element.id, `start event '${element.id}' cannot be a ${kind} event`);
    } else if (kind === 'compensate' && model.elements[scope.parentId]?.type !== 'subProcess') {
      problems.add(
        element.id,
        `compensation start event '${element.id}' is only allowed in an event sub-process of a sub-process`,
      );
    }
  }
}

function checkGateway(element: ElementModel, model: ProcessModel, problems: Problems): void {
  if (!element.type.endsWith('Gateway')) return;
  if (element.outgoing.length === 0) {
    problems.add(element.id, `${element.type} '${element.id}' has no outgoing sequence flow`);
    return;
  }
  if (
    element.type === 'complexGateway' &&
    element.incoming.length > 1 &&
    element.activationCondition === null
  ) {
    problems.add(
      element.id,
      `complex gateway '${element.id}' joins several flows but has no activationCondition`,
    );
  }
  if (
    element.type === 'exclusiveGateway' ||
    element.type === 'inclusiveGateway' ||
    element.type === 'complexGateway'
  ) {
    const fallback = element.defaultFlowId === null ? undefined : model.flows[element.defaultFlowId];
    if (fallback !== undefined && fallback.condition !== null) {
      problems.add(fallback.id, `default flow '${fallback.id}' of '${element.id}' must not have a condition`);
    }
    // A flow without a condition that is not the default is allowed: Camunda 7 counts it as a
    // true one (the runtime's flow choice does the same).
  }
  if (element.type === 'eventBasedGateway') {
    if (element.outgoing.length < 2) {
      problems.add(element.id, `event-based gateway '${element.id}' needs at least two outgoing flows`);
    }
    for (const flowId of element.outgoing) {
      const target = model.elements[model.flows[flowId]?.targetId ?? ''];
      if (target === undefined) continue;
      const waits =
        target.type === 'receiveTask' ||
        (target.type === 'intermediateCatchEvent' &&
          ['timer', 'message', 'signal', 'conditional'].includes(target.eventDefinition.kind));
      if (!waits) {
        problems.add(
          target.id,
          `event-based gateway '${element.id}' is followed by ${target.type} '${target.id}'; only catch events and receive tasks may follow it`,
        );
      }
    }
  }
}

function checkSubProcess(element: Extract<ElementModel, { type: 'subProcess' }>, problems: Problems): void {
  const starts = element.startEventIds;
  if (starts.length === 0) {
    problems.add(element.id, `sub-process '${element.id}' has no start event`);
  } else if (starts.length > 1) {
    problems.add(element.id, `sub-process '${element.id}' has more than one start event`);
  }
}
