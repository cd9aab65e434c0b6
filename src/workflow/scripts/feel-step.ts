import { evaluate, SyntaxError as FeelSyntaxError } from 'feelin';
import { feelVariables } from '../../lib/feel/index.js';
import { isJsonObject, toJsonValue } from './json-value.js';
import { positionAt } from './source-position.js';
import { jsonKind, resultVariableOf, singleChange, stepError, type StepRun } from './step-run.js';
import type { ScriptStep, Variables } from './types.js';

/**
 * Runs a FEEL step. With a result variable the value is stored under it; without one a context
 * result is merged key by key, and any other result is an error that says a result variable is needed.
 */
export function runFeelStep(step: ScriptStep, variables: Variables): StepRun {
  let raw: unknown;
  let warnings: readonly { message: string }[];
  try {
    ({ value: raw, warnings } = evaluate(step.expression, feelVariables(step.expression, variables)));
  } catch (e) {
    if (e instanceof FeelSyntaxError) {
      const { line, column } = positionAt(step.expression, e.position.from);
      return stepError(`FEEL syntax error: ${e.message}`, line, column);
    }
    return stepError(`FEEL evaluation failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const value = toJsonValue(raw);
  const resultVariable = resultVariableOf(step);
  if (resultVariable !== null)
    return { status: 'ok', output: value, changes: singleChange(resultVariable, value) };
  if (isJsonObject(value)) return { status: 'ok', output: value, changes: value };
  const why = value === null && warnings[0] ? ` (${warnings[0].message})` : '';
  return stepError(
    `FEEL step produced ${jsonKind(value)}${why}, not a context; set result_variable to store a non-context result`,
  );
}
