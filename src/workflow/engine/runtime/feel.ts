import { evaluate } from 'feelin';
import { feelVariables, rewriteArithmetic, runBounded, textMayRunLong } from '../../../lib/feel/index.js';
import { toJsonValue } from './json.js';
import type { JsonValue, Variables } from './types.js';

/** The value of an expression, or why it could not be evaluated. */
export type FeelResult = { ok: true; value: JsonValue } | { ok: false; message: string };

// feelin answers null with a warning instead of throwing. A missing variable or property is FEEL's
// null (Zeebe 8.3+ behaves the same); a type error or an unknown function is an evaluation error.
const LENIENT = new Set(['NO_VARIABLE_FOUND', 'NO_PROPERTY_FOUND', 'NO_CONTEXT_ENTRY_FOUND']);

/**
 * Evaluates FEEL text against variables. Never throws: a syntax error, an exception inside feelin,
 * a null caused by a type error, or an evaluation that outlives WORKFLOW_FEEL_TIMEOUT_MS or iterates
 * more than WORKFLOW_FEEL_MAX_LIST_LENGTH items comes back as `{ ok: false }`, for the caller to
 * raise an incident. Regular expressions run on RE2; `*`, `/` and unary `-` take durations too.
 */
export function evaluateFeel(expression: string, variables: Variables): FeelResult {
  try {
    const source = rewriteArithmetic(expression, Object.keys(variables));
    const context = feelVariables(source, variables);
    const { value, warnings } = textMayRunLong(expression)
      ? runBounded(() => evaluate(source, context))
      : evaluate(source, context);
    if (value === null || value === undefined) {
      const fatal = warnings.find((warning) => !LENIENT.has(warning.type));
      if (fatal !== undefined) return { ok: false, message: `${fatal.message} in '${expression}'` };
    }
    return { ok: true, value: toJsonValue(value) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `cannot evaluate '${expression}': ${message}` };
  }
}
