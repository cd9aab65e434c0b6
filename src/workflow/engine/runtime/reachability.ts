import type { ProcessModel } from '../model/index.js';

const cache = new WeakMap<ProcessModel, Map<string, boolean>>();

/**
 * Whether a token at `fromId` can still reach `targetId` through sequence flows of the same scope
 * (through the boundary events of activities and link events on the way too), without passing `targetId` itself.
 * Answers are cached per model, which never changes once compiled.
 */
export function canReach(model: ProcessModel, fromId: string, targetId: string): boolean {
  let answers = cache.get(model);
  if (answers === undefined) {
    answers = new Map();
    cache.set(model, answers);
  }
  const key = `${fromId}\u0000${targetId}`;
  const known = answers.get(key);
  if (known !== undefined) return known;
  const answer = search(model, fromId, targetId);
  answers.set(key, answer);
  return answer;
}

function search(model: ProcessModel, fromId: string, targetId: string): boolean {
  const seen = new Set<string>([fromId]);
  const queue = [fromId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const next of successors(model, id)) {
      if (next === targetId) return true;
      if (seen.has(next)) continue;
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
