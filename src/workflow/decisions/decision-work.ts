import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import type { DecisionReference } from '../engine/model/index.js';
import type { JsonValue } from '../engine/runtime/index.js';
import { DecisionError } from './decision-errors.js';
import type { DecisionService } from './service.js';

/**
 * Evaluates a business rule task's decision when the engine reaches it, in the same transaction.
 * The result goes to the task's result variable, shaped by Camunda's `mapDecisionResult`
 * (`singleEntry`, `singleResult`, `collectEntries`, `resultList`) or stored as evaluated (Zeebe).
 * An unknown decision or a failed evaluation raises an incident naming the decision and rule.
 */
export function decisionWork(decisions: DecisionService): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'decision',
    run: async (wait, owner) => {
      if (wait.kind !== 'decision') return null;
      const reference = wait.decision;
      const version =
        reference.binding === 'version' && reference.version !== null ? Number(reference.version) : null;
      try {
        const evaluation = await decisions.evaluateForProcess(
          owner.orgId,
          reference.decisionId,
          version,
          wait.variables,
        );
        const variables = reference.resultVariable
          ? { [reference.resultVariable]: mapResult(reference, evaluation.result) }
          : {};
        return { event: { type: 'complete', waitId: wait.waitId, variables } };
      } catch (error) {
        if (!(error instanceof DecisionError) && !(error instanceof MappingError)) throw error;
        return { event: { type: 'fail', waitId: wait.waitId, message: error.message } };
      }
    },
  };
}

class MappingError extends Error {}

function mapResult(reference: DecisionReference, raw: unknown): JsonValue {
  const result = JSON.parse(JSON.stringify(raw ?? null)) as JsonValue;
  const list = Array.isArray(result) ? result : result === null ? [] : [result];
  switch (reference.mapDecisionResult) {
    case 'singleEntry':
    case 'singleResult':
      if (list.length > 1) {
        throw new MappingError(
          `decision '${reference.decisionId}' matched ${list.length} rules but mapDecisionResult=${reference.mapDecisionResult} needs at most one`,
        );
      }
      return list[0] ?? null;
    case 'collectEntries':
    case 'resultList':
      return list;
    case null:
      return result;
  }
}
