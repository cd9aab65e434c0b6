import type { ProcessModel } from '../model/index.js';

// Answers per model, which never changes once compiled.
const cache = new WeakMap<ProcessModel, Map<string, boolean>>();

/**
 * Whether a token at `fromId` can still put a token on the sequence flow `flowId` without passing
 * `avoidId` (the gateway the flow enters): it is at the flow's source, or can reach it. An inclusive
 * join waits only for tokens that can reach one of its incoming flows that has none yet (BPMN 2.0.2
 * §13.3.4).
 */
export function canReachFlow(model: ProcessModel, fromId: string, flowId: string, avoidId: string): boolean {
  const sourceId = model.flows[flowId]?.sourceId;
  if (sourceId === undefined || sourceId === avoidId) return false;
  if (fromId === sourceId) return true;
  return cached(model, `${fromId}\u0000${sourceId}\u0000${avoidId}`, () =>
    search(model, fromId, sourceId, avoidId),
  );
}

/**
 * Whether a token at `fromId` holds up a gateway that waits for tokens on its `expected` incoming
 * flows (BPMN 2.0.2 §13.3.5, the complex gateway's reset): it can put a token on one of them, and
 * cannot put one on any of the gateway's other incoming flows (those that already delivered in this
 * round). A token that can reach both belongs to a later round; paths never pass the gateway.
 */
export function holdsUpGateway(
  model: ProcessModel,
  fromId: string,
  gateway: { id: string; incoming: readonly string[] },
  expected: readonly string[],
): boolean {
  if (!expected.some((flowId) => canReachFlow(model, fromId, flowId, gateway.id))) return false;
  return !gateway.incoming.some(
    (flowId) => !expected.includes(flowId) && canReachFlow(model, fromId, flowId, gateway.id),
  );
}

function cached(model: ProcessModel, key: string, compute: () => boolean): boolean {
  let answers = cache.get(model);
  if (answers === undefined) {
    answers = new Map();
    cache.set(model, answers);
  }
  const known = answers.get(key);
  if (known !== undefined) return known;
  const answer = compute();
  answers.set(key, answer);
  return answer;
}

// Breadth-first from `fromId` to `goalId`, never going on through `avoidId`.
function search(model: ProcessModel, fromId: string, goalId: string, avoidId: string): boolean {
  const seen = new Set<string>([fromId]);
  const queue = [fromId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const next of successors(model, id)) {
      if (next === goalId) return true;
      if (seen.has(next) || next === avoidId) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return false;
}

function successors(model: ProcessModel, id: string): string[] {
  const element = model.elements[id];
  if (element === undefined) return [];
  const next = element.outgoing.flatMap((flowId) => {
    const target = model.flows[flowId]?.targetId;
    return target === undefined ? [] : [target];
  });
  if ('boundaryEventIds' in element) next.push(...element.boundaryEventIds);
  // A link throw continues at its catch event.
  if (element.type === 'intermediateThrowEvent' && element.eventDefinition.kind === 'link') {
    const { targetId } = element.eventDefinition;
    if (targetId !== null) next.push(targetId);
  }
  return next;
}
