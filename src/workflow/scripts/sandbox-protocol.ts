import type { ScriptLimits } from './step-executor.js';
import type { ScriptStep, StepOutcome, Variables } from './types.js';

/** What a sandbox worker is started with. */
export interface SandboxWorkerData {
  limits: ScriptLimits;
}

/** A step for a sandbox worker to run. */
export interface SandboxRequest {
  id: number;
  step: ScriptStep;
  variables: Variables;
}

/** What a sandbox worker sends back: that it is ready, that it could not start, or a step's outcome. */
export type SandboxReply =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'outcome'; id: number; outcome: StepOutcome };
