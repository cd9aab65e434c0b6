/** A step language of the script pipeline. */
export type StepType = 'jq' | 'feel' | 'rhai';

/** One step as the playground edits it (and `POST /api/v1/scripts/execute` takes it). */
export interface EditedStep {
  /** Stable across edits, for Preact's keys; not sent. */
  uid: number;
  name: string;
  type: StepType;
  expression: string;
  result_variable: string;
}

/** One step's entry in the answer of `POST /api/v1/scripts/execute`. */
export interface StepResult {
  name: string;
  type: string;
  status: 'ok' | 'error';
  output: unknown;
  duration_ms: number;
  error?: { message: string; line: number | null; column: number | null };
}

/** The answer of `POST /api/v1/scripts/execute`. */
export interface PipelineRun {
  steps: StepResult[];
  variables_after: Record<string, unknown>;
}
