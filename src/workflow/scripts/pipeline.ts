import { mergeVariables } from './json-value.js';
import { createInProcessExecutor, type ScriptLimits, type StepExecutor } from './step-executor.js';
import {
  scriptStepTypes,
  type PipelineResult,
  type ScriptStep,
  type ScriptStepInput,
  type ScriptStepType,
  type StepResult,
  type Variables,
} from './types.js';

/** Why a pipeline cannot run: U020 for an unknown step type, U021 for an empty expression. */
export interface PipelineValidationProblem {
  code: 'U020' | 'U021';
  index: number;
  name: string;
  message: string;
}

/** Thrown by {@link runPipeline} when a step is invalid; nothing has run. */
export class PipelineValidationError extends Error {
  readonly problems: readonly PipelineValidationProblem[];
  constructor(problems: readonly PipelineValidationProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'PipelineValidationError';
    this.problems = problems;
  }
}

function isStepType(type: unknown): type is ScriptStepType {
  return (scriptStepTypes as readonly unknown[]).includes(type);
}

/** Every problem of every step, in step order (a step can have both); empty when the pipeline can run. */
export function validatePipeline(steps: readonly ScriptStepInput[]): PipelineValidationProblem[] {
  const problems: PipelineValidationProblem[] = [];
  steps.forEach((step, index) => {
    const label = `step ${index} (${JSON.stringify(step.name)})`;
    if (!isStepType(step.type)) {
      problems.push({
        code: 'U020',
        index,
        name: step.name,
        message: `${label} has type ${JSON.stringify(step.type)}; the type must be one of ${scriptStepTypes.join(', ')}`,
      });
    }
    if (typeof step.expression !== 'string' || step.expression.trim() === '') {
      problems.push({ code: 'U021', index, name: step.name, message: `${label} has an empty expression` });
    }
  });
  return problems;
}

/** Options of one pipeline run. */
export interface RunPipelineOptions {
  /** Run the steps up to and including the first one with this name; null or absent runs all. */
  runUntilStep?: string | null;
  /** Where steps run; defaults to this thread with `limits`. */
  executor?: StepExecutor;
  /** Limits for the default executor; ignored when `executor` is given. */
  limits?: ScriptLimits;
  /** Called after each step with its result and the variables it left, e.g. to record history. */
  onStep?: (result: StepResult, variablesAfter: Variables) => void | Promise<void>;
}

/** The steps a run covers: up to and including `runUntilStep`, or all when it is null or names no step. */
export function stepsToRun<T extends { name: string }>(
  steps: readonly T[],
  runUntilStep?: string | null,
): T[] {
  if (runUntilStep === null || runUntilStep === undefined) return [...steps];
  const last = steps.findIndex((step) => step.name === runUntilStep);
  return last === -1 ? [...steps] : steps.slice(0, last + 1);
}

let defaultExecutor: StepExecutor | null = null;

// Callers with limits should keep one executor and pass it, so its compiled programs are reused.
function executorFor(limits: ScriptLimits | undefined): StepExecutor {
  if (limits !== undefined) return createInProcessExecutor(limits);
  defaultExecutor ??= createInProcessExecutor();
  return defaultExecutor;
}

/**
 * Validates every step, then runs them in order, each over the variables the previous one left.
 * A step error ends the run: the failing step is the last entry and later steps are not listed.
 * `variablesAfter` are the variables after the last successful step.
 * @throws PipelineValidationError before anything runs when a step is invalid.
 */
export async function runPipeline(
  steps: readonly ScriptStepInput[],
  variables: Variables,
  options: RunPipelineOptions = {},
): Promise<PipelineResult> {
  const problems = validatePipeline(steps);
  if (problems.length > 0) throw new PipelineValidationError(problems);
  const executor = options.executor ?? executorFor(options.limits);
  const results: StepResult[] = [];
  let current = variables;
  const selected = stepsToRun(steps as readonly ScriptStep[], options.runUntilStep);
  for (const [index, step] of selected.entries()) {
    const outcome = await executor.execute(step, current);
    const base = { index, name: step.name, type: step.type, durationMs: outcome.durationMs };
    const result: StepResult =
      outcome.status === 'ok'
        ? { ...base, status: 'ok', output: outcome.output }
        : { ...base, status: 'error', output: null, error: outcome.error };
    if (outcome.status === 'ok') current = mergeVariables(current, outcome.changes);
    results.push(result);
    await options.onStep?.(result, current);
    if (outcome.status === 'error') return { steps: results, variablesAfter: current, ok: false };
  }
  return { steps: results, variablesAfter: current, ok: true };
}
