import { performance } from 'node:perf_hooks';
import { runFeelStep } from './feel-step.js';
import { loadJqEngine, type JqEngine } from './jq-engine.js';
import { runJqStep } from './jq-step.js';
import type { RhaiLimits } from '../../lib/rhai/index.js';
import type { JavaScriptLimits } from './javascript-engine.js';
import type * as RhaiStepModule from './rhai-step.js';
import { stepError, type StepRun } from './step-run.js';
import type { ScriptStep, StepOutcome, Variables } from './types.js';

/** Runs one validated step over the variables; a failure is an error outcome, never a rejection. */
export interface StepExecutor {
  execute(step: ScriptStep, variables: Variables): Promise<StepOutcome>;
}

/** Limits that apply to scripts; the service config supplies them. */
export interface ScriptLimits {
  /** Rhai interpreter limits (`eval` is disabled whatever the list says). */
  rhai?: Partial<RhaiLimits>;
  /** QuickJS limits of script tasks in JavaScript (their time limit is the sandbox's step timeout). */
  javascript?: Partial<Omit<JavaScriptLimits, 'timeoutMs'>>;
}

/** The Rhai limits with `eval` always among the disabled symbols. */
export function rhaiLimitsOf(limits: ScriptLimits = {}): Partial<RhaiLimits> {
  const rhai = limits.rhai ?? {};
  if (rhai.disabledSymbols === undefined || rhai.disabledSymbols.includes('eval')) return rhai;
  return { ...rhai, disabledSymbols: [...rhai.disabledSymbols, 'eval'] };
}

let sharedJq: Promise<JqEngine> | null = null;

/** This thread's jq, loaded on first use. */
export function threadJqEngine(): Promise<JqEngine> {
  sharedJq ??= loadJqEngine().catch((e: unknown) => {
    sharedJq = null;
    throw e;
  });
  return sharedJq;
}

/**
 * An executor that runs steps in the calling thread. It has no wall-clock bound of its own (Rhai has
 * its operation limit and deadline, jq and FEEL have none): use it where the expressions are trusted
 * or inside the sandbox's workers.
 */
export function createInProcessExecutor(limits: ScriptLimits = {}): StepExecutor {
  const rhaiLimits = rhaiLimitsOf(limits);
  // The Rhai interpreter is loaded on the first Rhai step; jq and FEEL do not pay for it.
  let rhai: Promise<{ step: typeof RhaiStepModule; programs: RhaiStepModule.RhaiProgramCache }> | null = null;
  const loadRhai = () =>
    (rhai ??= import('./rhai-step.js').then((step) => ({
      step,
      programs: step.createRhaiProgramCache(rhaiLimits),
    })));
  async function run(step: ScriptStep, variables: Variables): Promise<StepRun> {
    switch (step.type) {
      case 'jq':
        return runJqStep(await threadJqEngine(), step, variables);
      case 'feel':
        return runFeelStep(step, variables);
      case 'rhai': {
        const { step: rhaiStep, programs } = await loadRhai();
        return rhaiStep.runRhaiStep(programs, rhaiLimits, step, variables);
      }
    }
  }
  return {
    async execute(step, variables) {
      const started = performance.now();
      let result: StepRun;
      try {
        result = await run(step, variables);
      } catch (e) {
        result = stepError(`${step.type} step failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      return { ...result, durationMs: performance.now() - started };
    },
  };
}
