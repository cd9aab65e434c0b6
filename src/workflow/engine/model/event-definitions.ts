import { feelExpression, isJuel, staticValue } from './expressions.js';
import { readJob } from './job-definition.js';
import type { ModdleNode } from './moddle-node.js';
import {
  bodyOf,
  bool,
  bpmnTypeName,
  child,
  extension,
  genericAttr,
  list,
  nsAttr,
  NS,
  str,
} from './moddle-node.js';
import type { Problems } from './problems.js';
import { timerProblem } from '../schedule/schedule.js';
import type { ConditionalVariableEvent, EventDefinition, TimerDefinition } from './types.js';

const TIMER_FIELDS = [
  ['timeDate', 'date'],
  ['timeDuration', 'duration'],
  ['timeCycle', 'cycle'],
] as const;

/**
 * Reads the event definition of an event element: the one it contains, or the reusable one at the
 * top of the document it references (`eventDefinitionRef`, BPMN 2.0.2 §10.5.1), which means the
 * same. Returns `{ kind: 'none' }` when it has none, and null after recording a problem (several
 * definitions, an unsupported kind, a missing reference). Which kinds each event type may carry
 * is checked later, in validation.
 */
export function readEventDefinition(
  node: ModdleNode,
  elementId: string,
  problems: Problems,
): EventDefinition | null {
  const definitions = [...list(node, 'eventDefinitions'), ...list(node, 'eventDefinitionRef')];
  const definition = definitions[0];
  if (definition === undefined) return { kind: 'none' };
  if (definitions.length > 1) {
    // BPMN's multiple and parallel multiple events. Camunda 7 (the reference) does not implement
    // them either; modelling each trigger as its own event (an event-based gateway, several
    // boundary events) gives the same behaviour.
    const parallel = bool(node, 'parallelMultiple', false) ? 'parallel multiple' : 'multiple';
    problems.add(
      elementId,
      `event '${elementId}' has several event definitions (a ${parallel} event); multiple and parallel multiple events are not supported (Camunda 7 does not support them either): model each trigger as its own event, e.g. behind an event-based gateway or as separate boundary events`,
    );
    return null;
  }
  switch (definition.$type) {
    case 'bpmn:TimerEventDefinition': {
      const timer = readTimer(definition, elementId, problems);
      return timer === null ? null : { kind: 'timer', timer };
    }
    case 'bpmn:MessageEventDefinition':
      return readMessage(node, definition, elementId, problems);
    case 'bpmn:SignalEventDefinition': {
      const signal = child(definition, 'signalRef');
      const raw = signal === null ? null : str(signal, 'name');
      if (raw === null) {
        problems.add(elementId, `signal event '${elementId}' has no signal name`);
        return null;
      }
      const signalName = staticValue(raw, { problems, elementId, what: 'signal name' });
      return signalName === null ? null : { kind: 'signal', signalName };
    }
    case 'bpmn:ErrorEventDefinition': {
      const error = child(definition, 'errorRef');
      const errorCode = error === null ? null : str(error, 'errorCode');
      // Camunda's extras only when written, so other models keep the plain definition.
      const errorMessage = error === null ? null : nsAttr(error, NS.camunda, 'errorMessage');
      const codeVariable = nsAttr(definition, NS.camunda, 'errorCodeVariable');
      const messageVariable = nsAttr(definition, NS.camunda, 'errorMessageVariable');
      return {
        kind: 'error',
        errorCode,
        errorName: error === null ? null : str(error, 'name'),
        ...(errorMessage === null ? {} : { errorMessage }),
        ...(codeVariable === null ? {} : { codeVariable }),
        ...(messageVariable === null ? {} : { messageVariable }),
      };
    }
    case 'bpmn:EscalationEventDefinition': {
      const escalation = child(definition, 'escalationRef');
      return {
        kind: 'escalation',
        escalationCode: escalation === null ? null : str(escalation, 'escalationCode'),
        escalationName: escalation === null ? null : str(escalation, 'name'),
      };
    }
    case 'bpmn:TerminateEventDefinition':
      return { kind: 'terminate' };
    case 'bpmn:ConditionalEventDefinition':
      return readConditional(definition, elementId, problems);
    case 'bpmn:CompensateEventDefinition': {
      const activity = child(definition, 'activityRef');
      return {
        kind: 'compensate',
        activityRef: activity === null ? null : str(activity, 'id'),
        waitForCompletion: bool(definition, 'waitForCompletion', true),
      };
    }
    case 'bpmn:CancelEventDefinition':
      return { kind: 'cancel' };
    case 'bpmn:LinkEventDefinition': {
      const linkName = str(definition, 'name')?.trim() ?? '';
      if (linkName === '') {
        problems.add(elementId, `link event '${elementId}' has no link name`);
        return null;
      }
      return { kind: 'link', linkName, targetId: null };
    }
    default:
      problems.add(elementId, `${bpmnTypeName(definition)} on '${elementId}' is not supported`);
      return null;
  }
}

function readTimer(definition: ModdleNode, elementId: string, problems: Problems): TimerDefinition | null {
  const given = TIMER_FIELDS.flatMap(([field, kind]) => {
    const text = bodyOf(child(definition, field));
    return text === null ? [] : [{ field, kind, text }];
  });
  const first = given[0];
  if (first === undefined) {
    problems.add(elementId, `timer event '${elementId}' has no timeDate, timeDuration or timeCycle`);
    return null;
  }
  if (given.length > 1) {
    problems.add(
      elementId,
      `timer event '${elementId}' has more than one of timeDate, timeDuration, timeCycle`,
    );
    return null;
  }
  if (first.text.startsWith('=') || isJuel(first.text)) {
    const value = feelExpression(first.text, { problems, elementId, what: first.field });
    return value === null ? null : { kind: first.kind, value, isExpression: true };
  }
  // The same parser that schedules the timer checks it, so whatever deploys can be armed.
  const problem = timerProblem({ kind: first.kind, value: first.text });
  if (problem !== null) {
    problems.add(elementId, `timer event '${elementId}': ${problem}`);
    return null;
  }
  return { kind: first.kind, value: first.text, isExpression: false };
}

const VARIABLE_EVENTS: readonly ConditionalVariableEvent[] = ['create', 'update', 'delete'];

// A FEEL condition (JUEL is refused, as everywhere) and Camunda's variable filters.
function readConditional(
  definition: ModdleNode,
  elementId: string,
  problems: Problems,
): EventDefinition | null {
  const raw = bodyOf(child(definition, 'condition'));
  if (raw === null) {
    problems.add(elementId, `conditional event '${elementId}' has no condition`);
    return null;
  }
  const condition = feelExpression(raw, { problems, elementId, what: 'condition' });
  const variableName = nsAttr(definition, NS.camunda, 'variableName')?.trim() || null;
  const listed = nsAttr(definition, NS.camunda, 'variableEvents') ?? '';
  const names = listed
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(VARIABLE_EVENTS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    problems.add(
      elementId,
      `variableEvents of '${elementId}' lists ${unknown.map((name) => `'${name}'`).join(', ')}; only create, update and delete are known`,
    );
    return null;
  }
  if (condition === null) return null;
  const variableEvents = [...new Set(names)] as ConditionalVariableEvent[];
  return { kind: 'conditional', condition, variableName, variableEvents };
}

function readMessage(
  event: ModdleNode,
  definition: ModdleNode,
  elementId: string,
  problems: Problems,
): EventDefinition | null {
  const message = child(definition, 'messageRef');
  const raw = message === null ? null : str(message, 'name');
  const messageName = raw === null ? null : staticValue(raw, { problems, elementId, what: 'message name' });
  if (raw !== null && messageName === null) return null;
  // Camunda 7 puts a throw event's implementation on the definition, Zeebe on the event.
  const job = readJob(definition, elementId, problems) ?? readJob(event, elementId, problems);
  return { kind: 'message', messageName, correlationKey: readCorrelationKey(event, message), job };
}

/** Raw correlation key text: Zeebe's `zeebe:subscription` on the message, or a `camunda:correlationKey` attribute. */
export function readCorrelationKey(event: ModdleNode, message: ModdleNode | null): string | null {
  for (const holder of message === null ? [event] : [message, event]) {
    const subscription = extension(holder, NS.zeebe, 'subscription');
    const key =
      (subscription && genericAttr(subscription, 'correlationKey')) ??
      nsAttr(holder, NS.camunda, 'correlationKey');
    if (key !== null) return key.trim();
  }
  return null;
}
