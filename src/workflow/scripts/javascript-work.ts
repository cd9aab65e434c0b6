import type { Clock } from '../../platform/clock.js';
import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import { JAVASCRIPT_SCRIPT } from '../engine/runtime/index.js';
import { javascriptFailure, javascriptRunHistory } from './javascript-run-record.js';
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
      const history = [
        javascriptRunHistory(
          wait,
          { elementType: 'scriptTask', name: wait.elementId, index: 0 },
          outcome,
          clock,
        ),
      ];
      if (outcome.status === 'error') {
        const message = javascriptFailure(`javascript script of '${wait.elementId}'`, outcome.error);
        return { history, event: { type: 'fail', waitId: wait.waitId, message } };
      }
      return { history, event: { type: 'complete', waitId: wait.waitId, variables: outcome.changes } };
    },
  };
}
