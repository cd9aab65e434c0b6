import {
  defaultJavaScriptLimits,
  loadJavaScriptEngine,
  type JavaScriptEngine,
  type JavaScriptLimits,
  type JavaScriptTask,
} from './javascript-engine.js';
import type { ScriptLimits } from './step-executor.js';
import { stepError, type StepRun } from './step-run.js';

let shared: Promise<JavaScriptEngine> | null = null;

/** This thread's JavaScript engine, loaded on the first script (jq and FEEL steps do not pay for it). */
export function threadJavaScriptEngine(): Promise<JavaScriptEngine> {
  shared ??= loadJavaScriptEngine().catch((e: unknown) => {
    shared = null;
    throw e;
  });
  return shared;
}

/** The JavaScript limits: the configured ones over the defaults, with the given time limit. */
export function javascriptLimitsOf(limits: ScriptLimits, timeoutMs: number): JavaScriptLimits {
  return { ...defaultJavaScriptLimits, ...limits.javascript, timeoutMs };
}

/** Runs a script task's JavaScript in this thread; a failure is an error run, never a rejection. */
export async function runJavaScriptTask(task: JavaScriptTask, limits: JavaScriptLimits): Promise<StepRun> {
  try {
    return await (await threadJavaScriptEngine()).run(task, limits);
  } catch (e) {
    return stepError(`javascript script failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
