/**
 * A DMN decision engine, self-contained (it imports nothing of weft): parse, compile once, evaluate
 * many times. The caller refuses text its store cannot keep before it calls.
 */
export { parseDmn, type ParsedDmn } from './parse-dmn.js';
export { compileDmn, type CompiledDmn } from './compile-dmn.js';
export { defaultDmnLimits, type DmnLimits } from './dmn-limits.js';
export { evaluateDecision, evaluateDecisionService } from './evaluate-decision.js';
export { DmnEvaluationError, DmnValidationError } from './errors.js';
export type {
  Aggregation,
  DecisionInfo,
  DecisionResult,
  DecisionResultEntry,
  DmnBkm,
  DmnContext,
  DmnDecision,
  DmnDecisionService,
  DmnDecisionTable,
  DmnExpression,
  DmnFunctionDefinition,
  DmnInputData,
  DmnInvocation,
  DmnItemDefinition,
  DmnList,
  DmnLiteral,
  DmnModel,
  DmnProblem,
  DmnRelation,
  DmnTableInput,
  DmnTableOutput,
  DmnTableRule,
  EvaluateOptions,
  HitPolicy,
  MatchedRule,
} from './types.js';
