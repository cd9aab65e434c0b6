/** The DMN decision engine: parse, compile once, evaluate many times. */
export { parseDmn, type ParsedDmn } from './parse-dmn.js';
export { compileDmn, type CompiledDmn } from './compile-dmn.js';
export { defaultDmnLimits, type DmnLimits } from './dmn-limits.js';
export { evaluateDecision, evaluateDecisionService } from './evaluate-decision.js';
export { DmnEvaluationError, DmnValidationError } from './errors.js';
export type * from './types.js';
