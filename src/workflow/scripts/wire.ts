import type { JsonValue, PipelineResult, ScriptStepInput, StepError, Variables } from './types.js';

/** A step as `POST /api/v1/scripts/execute` and BPMN definitions spell it. */
export interface WireScriptStep {
  name: string;
  type: string;
  expression: string;
  result_variable?: string | null;
}

/** One step's entry in the dry-run response. */
export interface WireStepResult {
  name: string;
  type: string;
  status: 'ok' | 'error';
  output: JsonValue;
  duration_ms: number;
  error?: StepError;
}

/** The dry-run response body. */
export interface WirePipelineResult {
  steps: WireStepResult[];
  variables_after: Variables;
}

/** Steps from the wire shape to the internal one. */
export function fromWireSteps(steps: readonly WireScriptStep[]): ScriptStepInput[] {
  return steps.map((s) => ({
    name: s.name,
    type: s.type,
    expression: s.expression,
    resultVariable: s.result_variable ?? null,
  }));
}

/** A pipeline result in the wire shape; durations are rounded to microseconds. */
export function toWirePipelineResult(result: PipelineResult): WirePipelineResult {
  return {
    steps: result.steps.map((step) => ({
      name: step.name,
      type: step.type,
      status: step.status,
      output: step.output,
      duration_ms: Math.round(step.durationMs * 1000) / 1000,
      ...(step.error ? { error: step.error } : {}),
    })),
    variables_after: result.variablesAfter,
  };
}
