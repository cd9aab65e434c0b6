import { compileRhai, RhaiError, runRhai, type RhaiLimits } from '../../lib/rhai/index.js';
import { jsonEqual, setOwn, toJsonValue } from './json-value.js';
import { isRhaiVariableName } from './rhai-identifiers.js';
import { resultVariableOf, stepError, type StepRun } from './step-run.js';
import type { JsonValue, ScriptStep, Variables } from './types.js';

type RhaiProgram = ReturnType<typeof compileRhai>;

/** Compiled Rhai programs by source, for one set of limits. */
export interface RhaiProgramCache {
  get(source: string): RhaiProgram;
}

/** A bounded cache of compiled programs (oldest evicted first); compile errors are not cached. */
export function createRhaiProgramCache(limits: Partial<RhaiLimits>, capacity = 256): RhaiProgramCache {
  const programs = new Map<string, RhaiProgram>();
  return {
    get(source) {
      const cached = programs.get(source);
      if (cached !== undefined) return cached;
      const program = compileRhai(source, limits);
      if (programs.size >= capacity) {
        const oldest = programs.keys().next();
        if (oldest.done !== true) programs.delete(oldest.value);
      }
      programs.set(source, program);
      return program;
    },
  };
}

/**
 * Runs a Rhai step. The scope holds every variable whose name is a Rhai identifier; every scope
 * variable the script adds or changes is merged back, and the script's final value is the output
 * (also stored under the result variable when the step names one).
 */
export function runRhaiStep(
  cache: RhaiProgramCache,
  limits: Partial<RhaiLimits>,
  step: ScriptStep,
  variables: Variables,
): StepRun {
  const scope: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (isRhaiVariableName(name)) setOwn(scope, name, value);
  }
  let value: JsonValue;
  let after: Record<string, JsonValue>;
  try {
    ({ value, scope: after } = runRhai(cache.get(step.expression), scope, limits));
  } catch (e) {
    if (e instanceof RhaiError)
      return stepError(e.message, e.line > 0 ? e.line : null, e.column > 0 ? e.column : null);
    return stepError(`Rhai evaluation failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const changes: Variables = {};
  for (const [name, newValue] of Object.entries(after)) {
    if (!isRhaiVariableName(name)) continue;
    const json = toJsonValue(newValue);
    const old = Object.hasOwn(scope, name) ? scope[name] : undefined;
    if (old === undefined || !jsonEqual(old, json)) setOwn(changes, name, json);
  }
  const output = toJsonValue(value);
  const resultVariable = resultVariableOf(step);
  if (resultVariable !== null) setOwn(changes, resultVariable, output);
  return { status: 'ok', output, changes };
}
