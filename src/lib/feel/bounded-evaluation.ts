import vm from 'node:vm';
import { feelLimits } from './feel-limits.js';

/** Thrown when a FEEL evaluation outlives its budget (WORKFLOW_FEEL_TIMEOUT_MS). */
export class FeelTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`FEEL evaluation took longer than ${timeoutMs} ms (WORKFLOW_FEEL_TIMEOUT_MS) and was stopped`);
    this.name = 'FeelTimeoutError';
  }
}

// `vm`'s timeout interrupts whatever JavaScript runs below the script, feelin included, from a
// watchdog thread: the only way to stop a synchronous loop without moving it to another thread.
// Starting the watchdog costs about 0.1–0.2 ms, so only evaluations that can loop come this way.
const sandbox = vm.createContext({ job: null as (() => unknown) | null });
const script = new vm.Script('job()', { filename: 'feel-budget' });
let depth = 0;

/**
 * Runs `work` (a FEEL evaluation) within the wall-clock budget of feelLimits().timeoutMs and returns
 * its value; throws FeelTimeoutError when the budget runs out. Nested calls share the outer budget.
 * Whatever the interrupted evaluation left half-done is dropped: the work must not hold state that
 * outlives the call.
 */
export function runBounded<T>(work: () => T): T {
  if (depth > 0) return work();
  const { timeoutMs } = feelLimits();
  depth++;
  try {
    sandbox.job = work;
    return script.runInContext(sandbox, { timeout: timeoutMs }) as T;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new FeelTimeoutError(timeoutMs);
    }
    throw error;
  } finally {
    sandbox.job = null;
    depth--;
  }
}
