import type { Clock } from '../../platform/clock.js';
import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import type { HistoryEntry } from '../engine/runtime/index.js';
import { pipelineElementName, pipelineSteps } from './bpmn-pipeline.js';
import type { ScriptSandbox } from './sandbox.js';

/**
 * Runs a script task's `<weft:pipeline>` in the sandbox when the engine reaches it. Every step is a
 * history entry; a failing step raises an incident naming the step. Successful pipelines complete
 * the task with the variables as the last step left them.
 */
export function pipelineWork(sandbox: ScriptSandbox, clock: Clock): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'script' && wait.extension.name === pipelineElementName,
    run: async (wait) => {
      if (wait.kind !== 'script') return null;
      const steps = pipelineSteps(wait.extension);
      const result = await sandbox.run(steps, wait.variables, {});
      const at = clock.now().toISOString();
      const history: HistoryEntry[] = result.steps.map((step) => ({
        kind: 'scriptStep',
        elementId: wait.elementId,
        elementType: 'scriptTask',
        tokenId: wait.tokenId,
        at,
        data: {
          name: step.name,
          index: step.index,
          type: step.type,
          duration_ms: Math.round(step.durationMs * 1000) / 1000,
          status: step.status,
          ...(step.error ? { error: step.error.message } : {}),
        },
      }));
      const failed = result.steps.find((step) => step.status === 'error');
      if (failed) {
        return {
          history,
          event: {
            type: 'fail',
            waitId: wait.waitId,
            message: `script step ${failed.index + 1} '${failed.name}' (${failed.type}) failed: ${failed.error?.message ?? 'error'}`,
          },
        };
      }
      return { history, event: { type: 'complete', waitId: wait.waitId, variables: result.variablesAfter } };
    },
  };
}
