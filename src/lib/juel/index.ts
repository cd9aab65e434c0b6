/**
 * A safe interpreter of JUEL, the Java Unified Expression Language (EL 2.2) of Camunda 7's `${…}`
 * and `#{…}` expressions, self-contained (it imports nothing of weft but src/lib). Expressions see
 * the host's variables, `execution`, `task` and Camunda's built-in functions; they call only the
 * allow-listed methods; every evaluation is bounded. See docs/workflow/juel.md.
 */
export {
  compileJuel,
  evaluateJuel,
  isJuelText,
  juelVariableNames,
  type CompiledJuel,
  type JuelCompileResult,
  type JuelEvaluationResult,
} from './juel.js';
export type { JuelContext, JuelExecution, JuelTask } from './context.js';
export { defaultJuelLimits, type JuelLimits } from './limits.js';
export { JUEL_METHODS } from './methods.js';
export { JUEL_FUNCTIONS } from './functions.js';
