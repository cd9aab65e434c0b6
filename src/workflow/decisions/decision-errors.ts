import { ServiceError } from '../../platform/http/service-error.js';
import type { DmnEvaluationError } from '../../lib/dmn/index.js';

/** Base class of the errors evaluateForProcess throws, so the engine can catch them as one kind. */
export class DecisionError extends Error {
  constructor(
    message: string,
    readonly decisionKey: string,
  ) {
    super(message);
  }
}

/** No decision with this key (or no such version of it) exists in the organisation. */
export class UnknownDecisionError extends DecisionError {
  override readonly name = 'UnknownDecisionError';

  constructor(
    decisionKey: string,
    readonly version: number | null,
  ) {
    super(
      version === null
        ? `No decision with key '${decisionKey}'`
        : `No version ${version} of the decision with key '${decisionKey}'`,
      decisionKey,
    );
  }
}

/** The decision exists but could not be evaluated with the given variables. */
export class DecisionEvaluationFailedError extends DecisionError {
  override readonly name = 'DecisionEvaluationFailedError';
  /** The DMN decision (of the DRG) where it failed: the decision itself or one it requires. */
  readonly decisionId: string | null;
  readonly decisionName: string | null;
  readonly ruleId: string | null;
  /** 0-based index of the rule in its decision table. */
  readonly ruleIndex: number | null;
  readonly elementId: string | null;

  constructor(
    decisionKey: string,
    readonly version: number,
    cause: DmnEvaluationError | { message: string },
  ) {
    super(cause.message, decisionKey);
    const located = 'decisionId' in cause ? cause : null;
    this.decisionId = located?.decisionId ?? null;
    this.decisionName = located?.decisionName ?? null;
    this.ruleId = located?.ruleId ?? null;
    this.ruleIndex = located?.ruleIndex ?? null;
    this.elementId = located?.elementId ?? null;
  }
}

/** The HTTP error of a failed evaluation: 422 `U422`, details naming the decision and rule. */
export function evaluationFailed(error: DecisionEvaluationFailedError): ServiceError {
  return new ServiceError(422, 'U422', `Decision evaluation failed: ${error.message}`, {
    decision_key: error.decisionKey,
    version: error.version,
    decision_id: error.decisionId,
    decision_name: error.decisionName,
    rule_id: error.ruleId,
    rule_index: error.ruleIndex,
    element_id: error.elementId,
  });
}
