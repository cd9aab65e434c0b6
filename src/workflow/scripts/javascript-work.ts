import type { Clock } from '../../platform/clock.js';
import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import { JAVASCRIPT_SCRIPT, type HistoryEntry } from '../engine/runtime/index.js';
import type { ScriptSandbox } from './sandbox.js';

/**
 * Runs a script task's JavaScript (`scriptFormat="javascript"`) in the sandbox when the engine
 * reaches it. The run is one history entry; a script that throws, runs out of time or memory, or
 * sets more than the output limit raises an incident with its message and position. A successful
 * script completes the task with the variables it set (and its result variable), written in the
 * same transaction as the completion.
 */
export function javascriptWork(sandbox: ScriptSandbox, clock: Clock): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'script' && wait.extension.name === JAVASCRIPT_SCRIPT,
    run: async (wait, owner) => {
      if (wait.kind !== 'script') return null;
      const outcome = await sandbox.runJavaScript({
        source: wait.extension.text ?? '',
        variables: wait.variables,
        resultVariable: wait.extension.attributes.resultVariable ?? null,
        execution: {
          processInstanceId: owner.instanceId,
          processBusinessKey: owner.businessKey ?? null,
          processDefinitionId: owner.definitionId ?? null,
          activityId: wait.elementId,
          executionId: wait.tokenId,
        },
      });
      const history: HistoryEntry[] = [
        {
          kind: 'scriptStep',
          elementId: wait.elementId,
          elementType: 'scriptTask',
          tokenId: wait.tokenId,
          at: clock.now().toISOString(),
          data: {
            name: wait.elementId,
            index: 0,
            type: 'javascript',
            duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
            status: outcome.status,
            ...(outcome.status === 'error' ? { error: outcome.error.message } : {}),
          },
        },
      ];
      if (outcome.status === 'error') {
        const { message, line, column } = outcome.error;
        const at = line === null ? '' : ` at line ${line}${column === null ? '' : `, column ${column}`}`;
        return {
          history,
          event: {
            type: 'fail',
            waitId: wait.waitId,
            message: `javascript script of '${wait.elementId}' failed${at}: ${message}`,
          },
        };
      }
      return { history, event: { type: 'complete', waitId: wait.waitId, variables: outcome.changes } };
    },
  };
}
