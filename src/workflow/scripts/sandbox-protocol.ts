import type { JavaScriptTask } from './javascript-engine.js';
import type { ScriptLimits } from './step-executor.js';
import type { ScriptStep, StepOutcome, Variables } from './types.js';

/** What a sandbox worker is started with. */
export interface SandboxWorkerData {
  limits: ScriptLimits;
  /** The time a JavaScript script may run before the interpreter interrupts it, in ms. */
  javascriptTimeoutMs: number;
}

/** Work for a sandbox worker: a pipeline step, or a script task's JavaScript. */
export type SandboxWork =
  { kind: 'step'; step: ScriptStep; variables: Variables } | { kind: 'javascript'; task: JavaScriptTask };

/** Work for a sandbox worker to run. */
export interface SandboxRequest {
  id: number;
  work: SandboxWork;
}

/** What a sandbox worker sends back: that it is ready, that it could not start, or a step's outcome. */
export type SandboxReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'outcome'; id: number; outcome: StepOutcome };
