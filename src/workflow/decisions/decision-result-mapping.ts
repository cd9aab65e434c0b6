import { DecisionError } from './decision-errors.js';

/** Camunda 7's built-in decision result mappers (`camunda:mapDecisionResult`). */
export type DecisionResultMapping = 'singleEntry' | 'singleResult' | 'collectEntries' | 'resultList';

/** One entry of a decision result: output name → value. */
export type ResultEntry = Record<string, unknown>;

/** The decision result does not fit the business rule task's `mapDecisionResult`. */
export class DecisionResultMappingError extends DecisionError {
  override readonly name = 'DecisionResultMappingError';

  constructor(
    decisionKey: string,
    readonly mapping: DecisionResultMapping,
    detail: string,
  ) {
    super(`decision '${decisionKey}': mapDecisionResult '${mapping}' ${detail}`, decisionKey);
  }
}

/**
 * Maps a decision result (one entry per rule that decided it, each output name → value) as Camunda 7
 * does for a business rule task's result variable:
 * - `singleEntry`: at most one entry with exactly one output → that value (null for no entry);
 * - `singleResult`: at most one entry → its map of outputs (null for no entry);
 * - `collectEntries`: entries that all have the same single output → the list of its values ([] for none);
 * - `resultList`: the list of entries as they are.
 * A result that does not fit throws DecisionResultMappingError naming the decision and the mapping.
 */
export function mapDecisionResult(
  decisionKey: string,
  mapping: DecisionResultMapping,
  entries: readonly ResultEntry[],
): unknown {
  const fail = (detail: string): never => {
    throw new DecisionResultMappingError(decisionKey, mapping, detail);
  };
  switch (mapping) {
    case 'singleEntry': {
      const entry = singleEntryOf(entries, fail);
      if (entry === null) return null;
      const names = Object.keys(entry);
      if (names.length > 1) fail(`needs exactly one output, but the result has ${listNames(names)}`);
      const name = names[0];
      return name === undefined ? null : (entry[name] ?? null);
    }
    case 'singleResult':
      return singleEntryOf(entries, fail);
    case 'collectEntries': {
      const names = [...new Set(entries.flatMap((entry) => Object.keys(entry)))];
      if (names.length > 1) fail(`needs exactly one output, but the result has ${listNames(names)}`);
      const name = names[0];
      if (name === undefined) return [];
      return entries.filter((entry) => Object.hasOwn(entry, name)).map((entry) => entry[name] ?? null);
    }
    case 'resultList':
      return [...entries];
  }
}

function singleEntryOf(entries: readonly ResultEntry[], fail: (detail: string) => never): ResultEntry | null {
  if (entries.length > 1) fail(`needs at most one matched rule, but ${entries.length} rules matched`);
  return entries[0] ?? null;
}

function listNames(names: string[]): string {
  return `${names.length} outputs (${names.map((name) => `'${name}'`).join(', ')})`;
}
