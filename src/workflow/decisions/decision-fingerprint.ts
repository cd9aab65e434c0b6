import { createHash } from 'node:crypto';
import type { DmnModel } from '../../lib/dmn/index.js';

/**
 * A hex sha256 of what decision `decisionId` of a parsed model evaluates: the decision, every DRG
 * element it requires directly or transitively (decisions, input data, BKMs, decision services), the
 * item definitions, and the names of all DRG elements of the file (they decide which caller variables
 * are free variables). Layout, diagram elements, formatting, unrelated decisions and
 * `camunda:historyTimeToLive` do not count, so a redeploy that leaves a decision's behaviour
 * unchanged is recognised.
 *
 * A decision that requires at most MAX_LISTED_REQUIREMENTS elements (every model seen in practice) is
 * hashed with all of them listed (format 1, as since the first release). Beyond that, listing them
 * per decision would make a long chain of requirements cost its length squared, so the hash is a
 * Merkle tree instead (format 2: each element's hash covers the hashes of what it requires). The
 * format follows from the content alone, so an identical redeploy gives an identical fingerprint.
 */
export function decisionFingerprint(model: DmnModel, decisionId: string): string {
  return decisionFingerprinter(model)(decisionId);
}

/**
 * decisionFingerprint for every decision of one model: the lookups, the sorted names, the item
 * definitions and each element's canonical JSON are worked out once, so fingerprinting all the
 * decisions of a file costs what the requirements reached add up to, not the file's size per decision.
 * The text hashed is the same as decisionFingerprint's, piece by piece.
 */
export function decisionFingerprinter(model: DmnModel): (decisionId: string) => string {
  const decisions = new Map(model.decisions.map((d) => [d.id, d]));
  const inputs = new Map(model.inputData.map((i) => [i.id, i]));
  const bkms = new Map(model.bkms.map((b) => [b.id, b]));
  const services = new Map(model.decisionServices.map((s) => [s.id, s]));

  // What each id stands for and the ids it requires, as the hash sees them.
  const elements = new Map<string, { json: string; next: string[] }>();
  const element = (id: string): { json: string; next: string[] } => {
    const known = elements.get(id);
    if (known !== undefined) return known;
    const decision = decisions.get(id);
    const bkm = bkms.get(id);
    const service = services.get(id);
    const input = inputs.get(id);
    let value: unknown;
    let next: string[] = [];
    if (decision !== undefined) {
      // How long history is kept changes nothing the decision evaluates; a deploy compares it apart.
      const { historyTimeToLive: _kept, ...evaluated } = decision;
      value = { kind: 'decision', ...evaluated };
      next = [...decision.requiredDecisions, ...decision.requiredInputs, ...decision.requiredKnowledge];
    } else if (bkm !== undefined) {
      value = { kind: 'bkm', ...bkm };
      next = bkm.requiredKnowledge;
    } else if (service !== undefined) {
      value = { kind: 'service', ...service };
      next = [
        ...service.outputDecisions,
        ...service.encapsulatedDecisions,
        ...service.inputDecisions,
        ...service.inputData,
      ];
    } else if (input !== undefined) {
      value = { kind: 'input', ...input };
    } else {
      value = { kind: 'missing' };
    }
    const entry = { json: `[${JSON.stringify(id)},${canonicalJson(value)}]`, next };
    elements.set(id, entry);
    return entry;
  };

  const names = [...model.decisions, ...model.inputData, ...model.bkms, ...model.decisionServices]
    .map((e) => e.name)
    .sort();
  // The keys of the hashed object in canonical (sorted) order: decision, elements, format,
  // itemDefinitions, names.
  const shared = `"itemDefinitions":${canonicalJson(model.itemDefinitions)},"names":${canonicalJson(names)}}`;
  const tail = `],"format":1,${shared}`;

  // Format 2: an element's hash covers its JSON and the hashes of what it requires, each worked out
  // once. A requirement that leads back to an element being hashed (a cycle through a decision
  // service) counts by its id.
  const merkle = new Map<string, string>();
  const open = new Set<string>();
  const merkleOf = (id: string): string => {
    const known = merkle.get(id);
    if (known !== undefined) return known;
    if (open.has(id)) return `cycle:${id}`;
    open.add(id);
    const { json, next } = element(id);
    const hash = createHash('sha256').update(json, 'utf8');
    for (const required of next) hash.update(`,${merkleOf(required)}`, 'utf8');
    open.delete(id);
    const digest = hash.digest('hex');
    merkle.set(id, digest);
    return digest;
  };

  return (decisionId) => {
    const reached = new Set<string>();
    const pending = [decisionId];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      if (reached.has(id)) continue;
      if (reached.size === MAX_LISTED_REQUIREMENTS) {
        const root = merkleOf(decisionId);
        return createHash('sha256')
          .update(`{"decision":${JSON.stringify(decisionId)},"format":2,"root":"${root}",${shared}`, 'utf8')
          .digest('hex');
      }
      reached.add(id);
      pending.push(...element(id).next);
    }
    const hash = createHash('sha256');
    hash.update(`{"decision":${JSON.stringify(decisionId)},"elements":[`, 'utf8');
    [...reached].sort(byCodeUnits).forEach((id, i) => {
      hash.update(i === 0 ? element(id).json : `,${element(id).json}`, 'utf8');
    });
    hash.update(tail, 'utf8');
    return hash.digest('hex');
  };
}

/** Most elements a decision's format-1 fingerprint lists; see decisionFingerprint. */
export const MAX_LISTED_REQUIREMENTS = 256;

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
