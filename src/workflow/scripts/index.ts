/**
 * Script Task pipelines (jq, FEEL and Rhai steps over process variables, in-process or sandboxed)
 * and script tasks in JavaScript (QuickJS in the sandbox).
 */
export type {
  JsonValue,
  PipelineResult,
  ScriptStep,
  ScriptStepInput,
  ScriptStepType,
  StepError,
  StepOutcome,
  StepResult,
  Variables,
} from './types.js';
export { scriptStepTypes } from './types.js';
export {
  PipelineValidationError,
  runPipeline,
  stepsToRun,
  validatePipeline,
  type PipelineValidationProblem,
  type RunPipelineOptions,
} from './pipeline.js';
export { createInProcessExecutor, type ScriptLimits, type StepExecutor } from './step-executor.js';
export { createScriptSandbox, type ScriptSandbox, type ScriptSandboxOptions } from './sandbox.js';
export {
  fromWireSteps,
  toWirePipelineResult,
  type WirePipelineResult,
  type WireScriptStep,
  type WireStepResult,
} from './wire.js';
export { loadJqEngine, type JqEngine, type JqRunResult } from './jq-engine.js';
export {
  defaultJavaScriptLimits,
  loadJavaScriptEngine,
  type JavaScriptEngine,
  type JavaScriptExecution,
  type JavaScriptLimits,
  type JavaScriptTask,
} from './javascript-engine.js';
