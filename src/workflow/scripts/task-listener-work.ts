import type { Clock } from '../../platform/clock.js';
import type { ImmediateWork } from '../engine/driver/immediate-work.js';
import { TASK_LISTENER_SCRIPT } from '../engine/runtime/index.js';
import { javascriptFailure, javascriptRunHistory } from './javascript-run-record.js';
import { isJsonObject } from './json-value.js';
import type { ScriptSandbox } from './sandbox.js';

/**
 * Runs a Camunda 7 JavaScript task listener in the sandbox when the engine reaches it (a script wait
 * named `taskListener`, see the engine's task-listeners.ts). The script sees `task` and `execution`;
 * its answer (the variables it set and the assignee it left) is applied in the same transaction as
 * the step that fired it. A script that throws, runs out of time or memory raises an incident on
 * the user task whose retry runs the listener again; a failing `delete` listener is only recorded
 * (the task is withdrawn whatever it does).
 */
export function taskListenerWork(sandbox: ScriptSandbox, clock: Clock): ImmediateWork {
  return {
    handles: (wait) => wait.kind === 'script' && wait.extension.name === TASK_LISTENER_SCRIPT,
    run: async (wait, owner) => {
      if (wait.kind !== 'script') return null;
      // A `delete` listener's task is already withdrawn; its wait carries the task as it was.
      const task = (wait.taskListener ?? wait.deleteListener)?.task;
      if (task === undefined) return null;
      const event = wait.extension.attributes.event ?? '';
      const outcome = await sandbox.runJavaScript({
        source: wait.extension.text ?? '',
        variables: wait.variables,
        resultVariable: null,
        execution: {
          processInstanceId: owner.instanceId,
          processBusinessKey: owner.businessKey ?? null,
          processDefinitionId: owner.definitionId ?? null,
          activityId: wait.elementId,
          executionId: wait.tokenId,
        },
        task: {
          id: task.waitId,
          name: task.name,
          taskDefinitionKey: task.elementId,
          assignee: task.assignee,
          eventName: event,
        },
      });
      const subject = {
        elementType: 'userTask',
        name: `taskListener:${event}`,
        index: Number(wait.extension.attributes.index ?? 0),
      };
      const history = [javascriptRunHistory(wait, subject, outcome, clock)];
      if (outcome.status === 'error') {
        const what = `javascript task listener (event '${event}') of '${wait.elementId}'`;
        return {
          history,
          event: { type: 'fail', waitId: wait.waitId, message: javascriptFailure(what, outcome.error) },
        };
      }
      const left = isJsonObject(outcome.output) ? outcome.output.assignee : undefined;
      const assignee = typeof left === 'string' || left === null ? left : task.assignee;
      return {
        history,
        event: { type: 'taskListenerDone', waitId: wait.waitId, variables: outcome.changes, assignee },
      };
    },
  };
}
