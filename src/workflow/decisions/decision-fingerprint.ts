import { createHash } from 'node:crypto';
import type { DmnModel } from './dmn/index.js';

/**
 * A hex sha256 of what decision `decisionId` of a parsed model evaluates: the decision, every DRG
 * element it requires directly or transitively (decisions, input data, BKMs, decision services), the
 * item definitions, and the names of all DRG elements of the file (they decide which caller variables
 * are free variables). Layout, diagram elements, formatting and unrelated decisions do not count, so
 * a redeploy that leaves a decision's behaviour unchanged is recognised.
 */
export function decisionFingerprint(model: DmnModel, decisionId: string): string {
  const decisions = new Map(model.decisions.map((d) => [d.id, d]));
  const inputs = new Map(model.inputData.map((i) => [i.id, i]));
  const bkms = new Map(model.bkms.map((b) => [b.id, b]));
  const services = new Map(model.decisionServices.map((s) => [s.id, s]));

  const reached = new Map<string, unknown>();
  const pending = [decisionId];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (reached.has(id)) continue;
    const decision = decisions.get(id);
    const bkm = bkms.get(id);
    const service = services.get(id);
    const input = inputs.get(id);
    if (decision !== undefined) {
      reached.set(id, { kind: 'decision', ...decision });
      pending.push(...decision.requiredDecisions, ...decision.requiredInputs, ...decision.requiredKnowledge);
    } else if (bkm !== undefined) {
      reached.set(id, { kind: 'bkm', ...bkm });
      pending.push(...bkm.requiredKnowledge);
    } else if (service !== undefined) {
      reached.set(id, { kind: 'service', ...service });
      pending.push(
        ...service.outputDecisions,
        ...service.encapsulatedDecisions,
        ...service.inputDecisions,
        ...service.inputData,
      );
    } else if (input !== undefined) {
      reached.set(id, { kind: 'input', ...input });
    } else {
      reached.set(id, { kind: 'missing' });
    }
  }

  const names = [...model.decisions, ...model.inputData, ...model.bkms, ...model.decisionServices]
    .map((element) => element.name)
    .sort();
  const content = {
    format: 1,
    decision: decisionId,
    elements: [...reached.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    itemDefinitions: model.itemDefinitions,
    names,
  };
  return createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
}

// JSON with object keys sorted, so the hash does not depend on the order the parser set them in.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
