/**
 * Script Task vocabulary.
 *
 * - step: one expression in a Script Task's ordered pipeline, written in jq, FEEL or Rhai.
 * - variables: the process variables, a JSON object; each step sees them as the previous step left them.
 * - changes: the variables a step sets; they are merged over the variables before the next step.
 * - executor: what runs one step — in this thread, or in the sandbox's worker threads.
 */

/** Any value that survives a JSON round trip. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Process variables as a pipeline sees them. */
export type Variables = Record<string, JsonValue>;

/** The languages a step can be written in. */
export const scriptStepTypes = ['jq', 'feel', 'rhai'] as const;

/** One of {@link scriptStepTypes}. */
export type ScriptStepType = (typeof scriptStepTypes)[number];

/** A step as it arrives from a client or a BPMN definition, before validation. */
export interface ScriptStepInput {
  name: string;
  type: string;
  expression: string;
  resultVariable?: string | null;
}

/** A validated step. */
export interface ScriptStep extends ScriptStepInput {
  type: ScriptStepType;
}

/** Where and why a step failed; line and column are 1-based, null when the language gives none. */
export interface StepError {
  message: string;
  line: number | null;
  column: number | null;
}

/** What running one step produced: its output and the variables it sets, or an error. */
export type StepOutcome =
  | { status: 'ok'; output: JsonValue; changes: Variables; durationMs: number }
  | { status: 'error'; error: StepError; durationMs: number };

/** One step's entry in a pipeline result (and, in the engine, one history entry). */
export interface StepResult {
  index: number;
  name: string;
  type: ScriptStepType;
  status: 'ok' | 'error';
  output: JsonValue;
  durationMs: number;
  error?: StepError;
}

/** The result of running a pipeline: one entry per step that ran, and the variables after the last one. */
export interface PipelineResult {
  steps: StepResult[];
  variablesAfter: Variables;
  /** True when every step that was asked to run ended ok. */
  ok: boolean;
}
