import type { Clock } from '../../platform/clock.js';
import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import { EXECUTION_LISTENER_SCRIPT } from '../engine/runtime/index.js';
import { javascriptFailure, javascriptRunHistory } from './javascript-run-record.js';
import type { ScriptSandbox } from './sandbox.js';

/**
 * Runs a Camunda 7 JavaScript execution listener in the sandbox, with the limits of a script task,
 * when the engine reaches it (a script wait named `executionListener`, see the engine's
 * execution-listeners.ts). The script sees `execution` (its event name, and the flow node or flow
 * the listener is on); the variables it set are applied in the same transaction as the step that
 * fired it. A script that throws, runs out of time or memory raises an incident whose retry runs
 * the listener again (a process `end` listener's failure is only recorded).
 */
export function executionListenerWork(sandbox: ScriptSandbox, clock: Clock): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'script' && wait.extension.name === EXECUTION_LISTENER_SCRIPT,
    run: async (wait, owner) => {
      if (wait.kind !== 'script' || wait.executionListener === undefined) return null;
      const { event = '', host = wait.elementId, hostKind, hostType = 'process' } = wait.extension.attributes;
      const outcome = await sandbox.runJavaScript({
        source: wait.extension.text ?? '',
        variables: wait.variables,
        resultVariable: null,
        execution: {
          processInstanceId: owner.instanceId,
          processBusinessKey: owner.businessKey ?? null,
          processDefinitionId: owner.definitionId ?? null,
          activityId: hostKind === 'process' ? null : host,
          executionId: wait.tokenId,
          eventName: event,
        },
      });
      // The run is recorded on the listener's host: the flow node, the flow or the process.
      const subject = {
        elementType: hostType,
        name: `executionListener:${event}`,
        index: Number(wait.extension.attributes.index ?? 0),
      };
      const history = [javascriptRunHistory({ ...wait, elementId: host }, subject, outcome, clock)];
      if (outcome.status === 'error') {
        const what = `javascript execution listener (event '${event}') of '${host}'`;
        return {
          history,
          event: { type: 'fail', waitId: wait.waitId, message: javascriptFailure(what, outcome.error) },
        };
      }
      return { history, event: { type: 'complete', waitId: wait.waitId, variables: outcome.changes } };
    },
  };
}
