import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import type { DecisionReference } from '../engine/model/index.js';
import type { JsonValue } from '../engine/runtime/index.js';
import { DecisionError } from './decision-errors.js';
import { mapDecisionResult } from './decision-result-mapping.js';
import type { DecisionEvaluation, DecisionService } from './decision-service.js';

/**
 * Evaluates a business rule task's decision when the engine reaches it, in the same transaction.
 * With `camunda:mapDecisionResult` the result variable gets Camunda's mapping of the decision result
 * (`singleEntry`, `singleResult`, `collectEntries`, `resultList`); without one (Zeebe) it gets the
 * decision's value as evaluated. The decision is the latest version of its key, or the one pinned by
 * binding `version`. An unknown decision, an unsupported binding, a failed evaluation or a result the
 * mapping does not fit raises an incident naming the decision.
 */
export function decisionWork(decisions: DecisionService): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'decision',
    run: async (wait, owner) => {
      if (wait.kind !== 'decision') return null;
      const reference = wait.decision;
      try {
        const evaluation = await decisions.evaluateForProcess(
          owner.orgId,
          reference.decisionId,
          pinnedVersion(reference),
          wait.variables,
        );
        const variables = reference.resultVariable
          ? { [reference.resultVariable]: resultValue(reference, evaluation) }
          : {};
        return { event: { type: 'complete', waitId: wait.waitId, variables } };
      } catch (error) {
        if (!(error instanceof DecisionError)) throw error;
        return { event: { type: 'fail', waitId: wait.waitId, message: error.message } };
      }
    },
  };
}

/** A decision reference the service cannot resolve: a binding it does not support, or a bad version. */
export class DecisionBindingError extends DecisionError {
  override readonly name = 'DecisionBindingError';
}

/**
 * The version a decision reference pins, or null for the latest. Decisions are deployed on their own,
 * not with a process, and have no version tags: bindings `deployment` and `versionTag` are refused.
 */
export function pinnedVersion(reference: DecisionReference): number | null {
  const { decisionId, binding, version } = reference;
  switch (binding) {
    case 'latest':
      return null;
    case 'version': {
      const text = version?.trim() ?? '';
      const number = /^[0-9]{1,9}$/.test(text) ? Number(text) : 0;
      if (number < 1) {
        throw new DecisionBindingError(
          `decision '${decisionId}': binding 'version' needs a version number of 1 or more, not '${version ?? ''}'`,
          decisionId,
        );
      }
      return number;
    }
    case 'deployment':
    case 'versionTag':
      throw new DecisionBindingError(
        `decision '${decisionId}': binding '${binding}' is not supported (decisions are deployed on their own and have no version tags); use 'latest' or 'version'`,
        decisionId,
      );
  }
}

function resultValue(reference: DecisionReference, evaluation: DecisionEvaluation): JsonValue {
  const value =
    reference.mapDecisionResult === null
      ? evaluation.result
      : mapDecisionResult(reference.decisionId, reference.mapDecisionResult, evaluation.resultList);
  // evaluateForProcess gives plain JSON
  return (value ?? null) as JsonValue;
}
