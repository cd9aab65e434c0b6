import { readCorrelationKey, readEventDefinition } from './event-definitions.js';
import { readMappings } from './io-mappings.js';
import { readListeners } from './listeners.js';
import { readAsyncContinuations, readJobRetryCycle } from './async-continuations.js';
import { checkJavaVariableMapping, javaImplementation, javaImplementationProblem } from './java-parts.js';
import { readJob } from './job-definition.js';
import type { ModdleNode } from './moddle-node.js';
import { bodyOf, bool, bpmnTypeName, child, NS, nsAttr, str } from './moddle-node.js';
import { feelExpression } from './expressions.js';
import { readFormReference } from './form-reference.js';
import { readMultiInstance } from './multi-instance.js';
import { readStandardLoop } from './standard-loop.js';
import type { Problems } from './problems.js';
import { weftExtensions } from './raw-extensions.js';
import {
  readCalledElement,
  readDecision,
  readScript,
  readUserTask,
  scriptFormatProblem,
} from './task-details.js';
import { checkUnsupportedAttributes } from './unsupported-attributes.js';
import type {
  ActivityBase,
  ElementBase,
  ElementModel,
  ElementType,
  ExtensionSpec,
  RawXmlElement,
} from './types.js';

/** What building an element needs besides the element. */
export interface ElementContext {
  problems: Problems;
  extensions: Record<string, ExtensionSpec>;
}

/** Runs the registered validators of weft extension elements, recording their messages. */
export function validateExtensions(raws: RawXmlElement[], ownerId: string, ctx: ElementContext): void {
  for (const raw of raws) {
    for (const message of ctx.extensions[raw.name]?.validate?.(raw) ?? []) {
      ctx.problems.add(ownerId, `weft:${raw.name} of '${ownerId}': ${message}`);
    }
  }
}

/**
 * Builds the model of one flow node (without its flows, which are wired by the process builder).
 * Returns null after recording a problem when the element cannot be run at all.
 */
export function buildElement(
  node: ModdleNode,
  id: string,
  parentId: string,
  ctx: ElementContext,
): ElementModel | null {
  const { problems } = ctx;
  const mappings = readMappings(node, id, problems);
  const base: ElementBase = {
    id,
    name: str(node, 'name'),
    parentId,
    incoming: [],
    outgoing: [],
    inputs: mappings.inputs,
    outputs: mappings.outputs,
    extensions: weftExtensions(node),
  };
  validateExtensions(base.extensions, id, ctx);
  checkUnsupportedAttributes(node, id, problems);
  const type = bpmnTypeName(node);
  const listeners = readListeners(node, id, type === 'userTask' ? 'userTask' : 'flowNode', problems);
  if (listeners.length > 0) base.listeners = listeners;
  const continuations = readAsyncContinuations(node, id, problems);
  if (continuations !== null) base.async = continuations;
  const jobRetry = readJobRetryCycle(node, id, problems);
  if (jobRetry !== null) base.jobRetry = jobRetry;
  if (!node.$type.startsWith('bpmn:')) {
    problems.add(id, `element '${id}' of type ${node.$type} is not supported`);
    return null;
  }
  switch (type) {
    case 'startEvent':
    case 'endEvent':
    case 'intermediateCatchEvent':
    case 'intermediateThrowEvent':
    case 'boundaryEvent':
      return buildEvent(node, type, base, problems);
    case 'exclusiveGateway':
    case 'inclusiveGateway':
      return { ...base, type, defaultFlowId: null };
    case 'complexGateway': {
      const raw = bodyOf(child(node, 'activationCondition'));
      const activationCondition =
        raw === null ? null : feelExpression(raw, { problems, elementId: id, what: 'activation condition' });
      return { ...base, type, defaultFlowId: null, activationCondition };
    }
    case 'parallelGateway':
    case 'eventBasedGateway':
      return { ...base, type };
    case 'serviceTask':
    case 'sendTask':
    case 'receiveTask':
    case 'userTask':
    case 'scriptTask':
    case 'businessRuleTask':
    case 'manualTask':
    case 'task':
    case 'subProcess':
    case 'callActivity':
      return buildActivity(node, type, base, ctx);
    // A transaction runs as an embedded sub-process; a cancel end event inside it is what differs.
    case 'transaction': {
      const built = buildActivity(node, 'subProcess', base, ctx);
      return built?.type === 'subProcess' ? { ...built, isTransaction: true } : built;
    }
    default:
      problems.add(id, `${type} '${id}' is not supported`);
      return null;
  }
}

function buildEvent(
  node: ModdleNode,
  type: 'startEvent' | 'endEvent' | 'intermediateCatchEvent' | 'intermediateThrowEvent' | 'boundaryEvent',
  base: ElementBase,
  problems: Problems,
): ElementModel | null {
  const eventDefinition = readEventDefinition(node, base.id, problems);
  if (eventDefinition === null) return null;
  switch (type) {
    case 'startEvent': {
      const initiator = nsAttr(node, NS.camunda, 'initiator');
      const formKey = nsAttr(node, NS.camunda, 'formKey');
      const formRef = readFormReference(node, 'start event', base.id, problems);
      return {
        ...base,
        type,
        eventDefinition,
        isInterrupting: bool(node, 'isInterrupting', true),
        ...(initiator === null ? {} : { initiator }),
        ...(formKey === null ? {} : { formKey }),
        ...(formRef === null ? {} : { formRef }),
      };
    }
    case 'boundaryEvent': {
      const host = child(node, 'attachedToRef');
      const attachedTo = host === null ? null : str(host, 'id');
      if (attachedTo === null) {
        problems.add(base.id, `boundary event '${base.id}' is not attached to an activity`);
        return null;
      }
      return {
        ...base,
        type,
        eventDefinition,
        attachedTo,
        cancelActivity: bool(node, 'cancelActivity', true),
      };
    }
    default:
      return { ...base, type, eventDefinition };
  }
}

type ActivityType = Extract<ElementModel, ActivityBase>['type'];

function buildActivity(
  node: ModdleNode,
  type: ActivityType,
  base: ElementBase,
  ctx: ElementContext,
): ElementModel | null {
  const { problems } = ctx;
  const id = base.id;
  const before = problems.list.length;
  checkQuantities(node, id, problems);
  const activity: ActivityBase = {
    ...base,
    boundaryEventIds: [],
    multiInstance: readMultiInstance(node, id, problems),
    standardLoop: readStandardLoop(node, id, problems),
  };
  if (bool(node, 'isForCompensation', false)) activity.isForCompensation = true;
  const implementedBy = implementingExtension(activity, type, ctx.extensions);
  const java = javaImplementation(node);
  const missingImplementation = (what: string) => {
    problems.add(
      id,
      java !== null
        ? javaImplementationProblem(what, id, java)
        : `${what} '${id}' has no job type (zeebe:taskDefinition or camunda:topic)`,
    );
  };
  switch (type) {
    case 'serviceTask': {
      const job = readJob(node, id, problems);
      if (job === null && implementedBy === null && problems.list.length === before)
        missingImplementation('service task');
      return { ...activity, type, job, implementedBy };
    }
    case 'sendTask': {
      const job = readJob(node, id, problems);
      const message = child(node, 'messageRef');
      const messageName = message === null ? null : str(message, 'name');
      // Camunda 7 runs a send task's Java and not its message: publishing the message instead would
      // silently do something else.
      if (job === null && implementedBy === null && java !== null && problems.list.length === before) {
        problems.add(id, javaImplementationProblem('send task', id, java));
      } else if (
        job === null &&
        implementedBy === null &&
        messageName === null &&
        problems.list.length === before
      ) {
        problems.add(id, `send task '${id}' has no message, no job type and no weft implementation`);
      }
      const correlationKey = readCorrelationKey(node, message);
      return { ...activity, type, messageName, correlationKey, job, implementedBy };
    }
    case 'receiveTask': {
      const message = child(node, 'messageRef');
      const messageName = message === null ? null : str(message, 'name');
      if (messageName === null) {
        problems.add(id, `receive task '${id}' has no message name`);
        return null;
      }
      const correlationKey = readCorrelationKey(node, message);
      if (bool(node, 'instantiate', false)) {
        return { ...activity, type, messageName, correlationKey, instantiate: true };
      }
      return { ...activity, type, messageName, correlationKey };
    }
    case 'userTask':
      return { ...activity, type, ...readUserTask(node, id, problems) };
    case 'scriptTask': {
      const job = readJob(node, id, problems);
      const script = readScript(node, id, problems);
      if (job === null && implementedBy === null && problems.list.length === before) {
        const unsupported =
          script.script === null ? null : scriptFormatProblem('script task', id, script.script.format);
        if (script.script === null) problems.add(id, `script task '${id}' has no script`);
        else if (unsupported !== null) problems.add(id, unsupported);
      }
      return { ...activity, type, ...script, job, implementedBy };
    }
    case 'businessRuleTask': {
      const job = readJob(node, id, problems);
      const decision = readDecision(node, id, problems);
      if (decision === null && job === null && problems.list.length === before) {
        problems.add(
          id,
          java !== null
            ? javaImplementationProblem('business rule task', id, java)
            : `business rule task '${id}' has no decision reference`,
        );
      }
      return { ...activity, type, decision, job };
    }
    case 'callActivity': {
      checkJavaVariableMapping(node, id, problems);
      const called = readCalledElement(node, id, problems);
      if (called === null) return null;
      return {
        ...activity,
        type,
        calledElement: called.calledElement,
        inputs: [...activity.inputs, ...called.inputs],
        outputs: [...activity.outputs, ...called.outputs],
      };
    }
    case 'subProcess':
      return {
        ...activity,
        type,
        triggeredByEvent: bool(node, 'triggeredByEvent', false),
        startEventIds: [],
        childIds: [],
        eventSubProcessIds: [],
      };
    case 'manualTask':
      return { ...activity, type };
    case 'task':
      return { ...activity, type };
  }
}

/**
 * BPMN `startQuantity` / `completionQuantity` (tokens needed to start, tokens produced on each
 * outgoing flow). Only 1, the default, is supported: like Camunda 7, the engine runs an activity
 * once per arriving token and leaves it with one token per flow taken.
 */
function checkQuantities(node: ModdleNode, id: string, problems: Problems): void {
  for (const key of ['startQuantity', 'completionQuantity']) {
    const raw: unknown = node[key];
    if (typeof raw !== 'number' && typeof raw !== 'string') continue;
    const value = String(raw);
    if (Number(value) === 1) continue;
    problems.add(
      id,
      Number(value) >= 1
        ? `${key}="${value}" on '${id}' is not supported; only 1 is (join tokens with a parallel gateway, split them with one)`
        : `${key}="${value}" on '${id}' is invalid; it must be at least 1`,
    );
  }
}

function implementingExtension(
  base: ElementBase,
  type: ElementType,
  specs: Record<string, ExtensionSpec>,
): string | null {
  return base.extensions.find((raw) => specs[raw.name]?.implements?.includes(type) === true)?.name ?? null;
}
