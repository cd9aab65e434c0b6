import { isJsonObject } from './json-value.js';
import type { JqEngine } from './jq-engine.js';
import { jsonKind, stepError, type StepRun } from './step-run.js';
import type { ScriptStep, Variables } from './types.js';

/**
 * Runs a jq step: the input is the variable map, the program must produce exactly one object,
 * and that object's keys are merged into the variables.
 */
export async function runJqStep(jq: JqEngine, step: ScriptStep, variables: Variables): Promise<StepRun> {
  const result = await jq.run(step.expression, variables);
  if (!result.ok) return { status: 'error', error: result.error };
  const { outputs } = result;
  const [output] = outputs;
  if (outputs.length !== 1 || output === undefined) {
    return stepError(`jq step must produce exactly one object, but it produced ${outputs.length} outputs`);
  }
  if (!isJsonObject(output)) {
    return stepError(
      `jq step must produce an object whose keys become variables, but it produced ${jsonKind(output)}`,
    );
  }
  return { status: 'ok', output, changes: output };
}
