import type { ElementContext } from './build-element.js';
import { buildElement, validateExtensions } from './build-element.js';
import { feelExpression } from './expressions.js';
import { readHistoryTimeToLive } from './history-time-to-live.js';
import type { ModdleNode } from './moddle-node.js';
import { bodyOf, bpmnTypeName, child, list, str } from './moddle-node.js';
import { attachCompensationHandlers } from './compensation-handlers.js';
import { readListeners } from './listeners.js';
import type { ListenerModel } from './types.js';
import { weftExtensions } from './raw-extensions.js';
import type { Problems } from './problems.js';
import type { ElementModel, ProcessModel, ScopeModel } from './types.js';

// Data and artifacts carry no behaviour we run; they are ignored rather than rejected.
const IGNORED_TYPES = new Set(['bpmn:DataObject', 'bpmn:DataObjectReference', 'bpmn:DataStoreReference']);

interface PendingFlow {
  node: ModdleNode;
  id: string;
  scopeId: string;
  listeners: ListenerModel[];
}

interface Walk extends ElementContext {
  model: ProcessModel;
  /** Every id met in the process, including elements that failed to build. */
  seen: Set<string>;
  flows: PendingFlow[];
  /** Element id (gateway or activity) → its `default` flow node. */
  defaults: Map<string, ModdleNode>;
  /** Associations (artifacts) of every scope: they attach compensation handlers. */
  associations: ModdleNode[];
}

/**
 * Builds the model of one process: elements of every scope, sequence flows with their FEEL
 * conditions, default flows and boundary attachments. Structural rules are checked afterwards by
 * `validateProcess`; problems met here (unsupported elements, dangling flows) go to `ctx.problems`.
 */
export function buildProcess(process: ModdleNode, processKey: string, ctx: ElementContext): ProcessModel {
  const model: ProcessModel = {
    processKey,
    name: str(process, 'name') ?? processKey,
    elements: {},
    flows: {},
    childIds: [],
    eventSubProcessIds: [],
    startEventIds: { none: [], timer: [], message: [], signal: [] },
    messageFlows: [],
    extensions: weftExtensions(process),
  };
  validateExtensions(model.extensions, processKey, ctx);
  const listeners = readListeners(process, processKey, 'process', ctx.problems);
  if (listeners.length > 0) model.listeners = listeners;
  const historyTimeToLive = readHistoryTimeToLive(process, processKey, ctx.problems);
  if (historyTimeToLive !== undefined) model.historyTimeToLive = historyTimeToLive;
  const walk: Walk = {
    ...ctx,
    model,
    seen: new Set([processKey]),
    flows: [],
    defaults: new Map(),
    associations: [],
  };
  walkScope(process, processKey, model, walk);
  for (const flow of walk.flows) wireFlow(flow, walk);
  for (const [elementId, flowNode] of walk.defaults) wireDefault(elementId, flowNode, walk);
  resolveLinks(model, walk.problems);
  recordInstantiatingReceiveTasks(model);
  for (const element of Object.values(model.elements)) {
    if (element.type === 'boundaryEvent') attachBoundary(element.id, element.attachedTo, walk);
  }
  attachCompensationHandlers(walk.associations, model, ctx.problems);
  return model;
}

function walkScope(container: ModdleNode, scopeId: string, scope: ScopeModel, walk: Walk): void {
  const { problems, model } = walk;
  walk.associations.push(...list(container, 'artifacts').filter((node) => node.$type === 'bpmn:Association'));
  for (const node of list(container, 'flowElements')) {
    if (IGNORED_TYPES.has(node.$type)) continue;
    const id = str(node, 'id');
    if (id === null) {
      problems.add(scopeId, `a ${bpmnTypeName(node)} in '${scopeId}' has no id`);
      continue;
    }
    if (walk.seen.has(id)) {
      problems.add(id, `the id '${id}' is used more than once`);
      continue;
    }
    walk.seen.add(id);
    if (node.$type === 'bpmn:SequenceFlow') {
      walk.flows.push({ node, id, scopeId, listeners: readListeners(node, id, 'sequenceFlow', problems) });
      continue;
    }
    const element = buildElement(node, id, scopeId, walk);
    if (element === null) continue;
    model.elements[id] = element;
    scope.childIds.push(id);
    if (element.type === 'startEvent') recordStart(element, scopeId, walk);
    const fallback = child(node, 'default');
    if (fallback !== null) walk.defaults.set(id, fallback);
    if (element.type === 'subProcess') {
      if (element.triggeredByEvent) scope.eventSubProcessIds.push(id);
      walkScope(node, id, element, walk);
    }
  }
}

function recordStart(
  element: Extract<ElementModel, { type: 'startEvent' }>,
  scopeId: string,
  walk: Walk,
): void {
  const { model } = walk;
  if (scopeId !== model.processKey) {
    const scope = model.elements[scopeId];
    if (scope?.type === 'subProcess') scope.startEventIds.push(element.id);
    return;
  }
  const kind = element.eventDefinition.kind;
  if (kind === 'none' || kind === 'timer' || kind === 'message' || kind === 'signal') {
    model.startEventIds[kind].push(element.id);
  } else if (kind === 'conditional') {
    // Camunda 7 starts such a process only through its evaluateConditions API; weft has no
    // request that evaluates conditions of undeployed instances.
    walk.problems.add(
      element.id,
      `conditional start event '${element.id}' is only supported as the start of an event sub-process: a process-level conditional start would need an API that evaluates conditions to start instances (Camunda 7's evaluateConditions), which weft does not have; start the process with a none or message start event instead`,
    );
  } else {
    walk.problems.add(
      element.id,
      `a ${kind} start event ('${element.id}') is only allowed in an event sub-process`,
    );
  }
}

function wireFlow({ node, id, scopeId, listeners }: PendingFlow, walk: Walk): void {
  const { model, problems } = walk;
  const source = endpoint(node, 'sourceRef', id, walk);
  const target = endpoint(node, 'targetRef', id, walk);
  if (source === null || target === null) {
    // The other end of a flow to a refused element keeps the flow, so it is not also reported as
    // lacking an incoming (or outgoing) flow: each real problem is reported once.
    if (source !== null && refused(node, 'targetRef', walk)) source.outgoing.push(id);
    if (target !== null && refused(node, 'sourceRef', walk)) target.incoming.push(id);
    return;
  }
  if (source.parentId !== scopeId || target.parentId !== scopeId) {
    problems.add(id, `sequence flow '${id}' crosses the boundary of a sub-process`);
    return;
  }
  const conditionNode = child(node, 'conditionExpression');
  const raw = bodyOf(conditionNode);
  let condition: string | null = null;
  if (raw !== null && conditionNode !== null) {
    const language = str(conditionNode, 'language');
    if (language !== null && !/feel/i.test(language)) {
      problems.add(id, `condition of '${id}' is in '${language}'; only FEEL is supported`);
      condition = raw;
    } else {
      // Keep the raw text after a problem, so the flow is not also reported as unconditional.
      condition = feelExpression(raw, { problems, elementId: id, what: 'condition' }) ?? raw;
    }
  }
  model.flows[id] = {
    id,
    name: str(node, 'name'),
    sourceId: source.id,
    targetId: target.id,
    condition,
    isDefault: false,
  };
  if (listeners.length > 0) model.flows[id].listeners = listeners;
  source.outgoing.push(id);
  target.incoming.push(id);
}

// True when the flow's end is an element that was met but failed to build (its problem is recorded).
function refused(node: ModdleNode, key: 'sourceRef' | 'targetRef', walk: Walk): boolean {
  const ref = child(node, key);
  const refId = ref === null ? null : str(ref, 'id');
  return refId !== null && walk.seen.has(refId) && walk.model.elements[refId] === undefined;
}

// The element at one end of a flow, or null (with a problem unless the element already has one).
function endpoint(
  node: ModdleNode,
  key: 'sourceRef' | 'targetRef',
  flowId: string,
  walk: Walk,
): ElementModel | null {
  const end = key === 'sourceRef' ? 'source' : 'target';
  const ref = child(node, key);
  const refId = ref === null ? null : str(ref, 'id');
  if (refId === null) {
    walk.problems.add(flowId, `sequence flow '${flowId}' points to a missing ${end} element`);
    return null;
  }
  const element = walk.model.elements[refId];
  if (element !== undefined) return element;
  if (!walk.seen.has(refId)) {
    walk.problems.add(
      flowId,
      `sequence flow '${flowId}' has ${end} '${refId}', which is not a flow node of this process`,
    );
  }
  return null;
}

// A top-level receive task with instantiate="true" and no incoming flow starts the process when its
// message arrives, as a message start event would.
function recordInstantiatingReceiveTasks(model: ProcessModel): void {
  for (const id of model.childIds) {
    const element = model.elements[id];
    if (element?.type !== 'receiveTask' || element.instantiate !== true || element.incoming.length > 0)
      continue;
    const { messageName, correlationKey } = element;
    element.eventDefinition = { kind: 'message', messageName, correlationKey, job: null };
    model.startEventIds.message.push(id);
  }
}

// The `default` of a gateway or of an activity (BPMN 13.2.1: an activity may have one too).
function wireDefault(elementId: string, flowNode: ModdleNode, walk: Walk): void {
  const element = walk.model.elements[elementId];
  const flowId = str(flowNode, 'id');
  const flow = flowId === null ? undefined : walk.model.flows[flowId];
  if (element === undefined || flow === undefined) return;
  if (flow.sourceId !== elementId) {
    walk.problems.add(elementId, `default flow '${flow.id}' of '${elementId}' does not leave that element`);
    return;
  }
  if ('defaultFlowId' in element) element.defaultFlowId = flow.id;
  flow.isDefault = true;
}

/**
 * Points each link throw event at the link catch event of the same name in its scope (BPMN 13.5.4:
 * a link connects two parts of one process level). A name caught twice in one scope, or thrown
 * with no catch, is a problem.
 */
function resolveLinks(model: ProcessModel, problems: Problems): void {
  const catches = new Map<string, string>();
  for (const element of Object.values(model.elements)) {
    if (element.type !== 'intermediateCatchEvent' || element.eventDefinition.kind !== 'link') continue;
    const key = `${element.parentId}\u0000${element.eventDefinition.linkName}`;
    const other = catches.get(key);
    if (other !== undefined) {
      problems.add(
        element.id,
        `link catch events '${other}' and '${element.id}' in '${element.parentId}' share the name '${element.eventDefinition.linkName}'`,
      );
    } else catches.set(key, element.id);
  }
  for (const element of Object.values(model.elements)) {
    if (element.type !== 'intermediateThrowEvent' || element.eventDefinition.kind !== 'link') continue;
    const definition = element.eventDefinition;
    const targetId = catches.get(`${element.parentId}\u0000${definition.linkName}`);
    if (targetId === undefined) {
      problems.add(
        element.id,
        `link throw event '${element.id}' names '${definition.linkName}', but no link catch event in '${element.parentId}' has that name`,
      );
    } else definition.targetId = targetId;
  }
}

function attachBoundary(boundaryId: string, hostId: string, walk: Walk): void {
  const host = walk.model.elements[hostId];
  const boundary = walk.model.elements[boundaryId];
  if (host === undefined || !('boundaryEventIds' in host)) {
    if (host !== undefined || !walk.seen.has(hostId)) {
      walk.problems.add(boundaryId, `boundary event '${boundaryId}' is not attached to an activity`);
    }
    return;
  }
  if (boundary !== undefined && boundary.parentId !== host.parentId) {
    walk.problems.add(boundaryId, `boundary event '${boundaryId}' is not in the same scope as '${hostId}'`);
    return;
  }
  host.boundaryEventIds.push(boundaryId);
}
