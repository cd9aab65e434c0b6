import type { JuelTask } from '../../../lib/juel/index.js';
import type { ElementModel } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { PendingDeleteListeners, ScriptWait, TokenState, UserTaskWait, Variables } from './types.js';
import { setVariables, tokenVariables } from './variables.js';

/*
 * The parts of Camunda 7 task listeners that need nothing of the engine's triggers: finding an
 * element's listeners of an event, running a JUEL listener and the `delete` listeners. Kept apart
 * from task-listeners.ts so that ending a token (terminate.ts) can run `delete` listeners without
 * importing the triggers.
 */

/** The element's listeners of one task event, as indexes into its listener list. */
export function listenersOf(element: ElementModel, event: string): number[] {
  const indexes: number[] = [];
  (element.listeners ?? []).forEach((listener, index) => {
    if (listener.kind === 'task' && listener.event === event) indexes.push(index);
  });
  return indexes;
}

/** The `extension.name` of the script wait that runs a JavaScript task listener. */
export const TASK_LISTENER_SCRIPT = 'taskListener';

/**
 * Runs the `delete` listeners of a user task whose wait is being withdrawn (the instance is
 * cancelled or terminated, a boundary event interrupts, a modification cancels it). They see the
 * variables as the task leaves them. A JavaScript one cannot run inside the withdrawal, which is
 * synchronous and goes on without the task: its script wait opens and outlives the task (and the
 * instance), the driver answers it in the same call, and the listeners after it run then.
 */
export function runDeleteListeners(run: Run, wait: UserTaskWait): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  const queue = listenersOf(run.element(wait.elementId), 'delete');
  if (queue.length === 0) return;
  const variables = tokenVariables(run.state, token);
  runDeleteQueue(run, { queue, task: { ...wait }, scopeId: token.scopeId, variables });
}

/**
 * A JavaScript `delete` listener's answer (null when it failed, with `failure`): what it set is
 * set, and the listeners after it run.
 */
export function resumeDeleteListeners(
  run: Run,
  wait: ScriptWait,
  variables: Variables | null,
  failure: string | null = null,
): void {
  const pending = wait.deleteListener;
  run.closeWait(wait.waitId, failure === null ? 'completed' : 'failed');
  if (pending === undefined) return;
  if (failure !== null) deleteListenerFailed(run, pending, failure);
  else if (variables !== null) setDeleteWrites(run, pending, variables);
  runDeleteQueue(run, pending);
}

// Runs queued delete listeners until one is JavaScript (its wait opens) or all ran. A failure cannot
// stop the withdrawal (there is no step to roll back to): it is recorded and the rest run.
function runDeleteQueue(run: Run, pending: PendingDeleteListeners): void {
  const element = run.element(pending.task.elementId);
  const queue = [...pending.queue];
  for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
    const listener = element.listeners?.[index];
    if (listener?.script != null) {
      openDeleteWait(run, listener.script, index, { ...pending, queue });
      return;
    }
    if (listener?.expression == null) continue;
    const at = { id: pending.task.tokenId, elementId: pending.task.elementId };
    const result = evaluateListener(run, at, listener.expression, pending.task, pending.variables);
    if (!result.ok)
      deleteListenerFailed(
        run,
        pending,
        `task listener (event 'delete') of '${element.id}' failed: ${result.message}`,
      );
    else setDeleteWrites(run, pending, result.writes);
  }
}

// What a delete listener set goes to the task's scope while it exists (else the instance), and the
// listeners after it see it.
function setDeleteWrites(run: Run, pending: PendingDeleteListeners, writes: Variables): void {
  if (Object.keys(writes).length === 0) return;
  setVariables(run, pending.scopeId, writes, pending.task.tokenId);
  pending.variables = { ...pending.variables, ...writes };
}

function deleteListenerFailed(run: Run, pending: PendingDeleteListeners, message: string): void {
  run.history('listenerFailed', pending.task.elementId, null, { event: 'delete', message });
}

function openDeleteWait(run: Run, script: string, index: number, pending: PendingDeleteListeners): void {
  const wait: ScriptWait = {
    waitId: run.ctx.newId(),
    elementId: pending.task.elementId,
    // The task's token, which is gone by the time the script runs.
    tokenId: pending.task.tokenId,
    role: { kind: 'activity' },
    openedAt: run.now(),
    kind: 'script',
    extension: {
      name: TASK_LISTENER_SCRIPT,
      attributes: { event: 'delete', index: String(index) },
      children: [],
      text: script,
    },
    variables: pending.variables,
    deleteListener: pending,
  };
  run.openWait(wait);
}

/**
 * Evaluates a JUEL task listener with `task` and `execution` over `variables`; what it set (by
 * `task.setVariable` or `execution.setVariable`) comes back for the caller to set.
 */
export function evaluateListener(
  run: Run,
  at: Pick<TokenState, 'id' | 'elementId'>,
  expression: string,
  task: UserTaskWait,
  variables: Variables,
): { ok: true; writes: Variables } | { ok: false; message: string } {
  const writes: Variables = {};
  const write = (name: string, value: unknown) => {
    writes[name] =
      value === undefined ? null : (JSON.parse(JSON.stringify(value ?? null)) as Variables[string]);
  };
  const scope = expressionScope(run, at);
  const juelTask: JuelTask = {
    id: task.waitId,
    name: task.name,
    assignee: task.assignee,
    taskDefinitionKey: task.elementId,
    processInstanceId: run.ctx.instance?.id ?? null,
    executionId: at.id,
    setVariable: write,
  };
  const result = evaluateExpression(expression, variables, {
    ...scope,
    ...(scope.execution === undefined ? {} : { execution: { ...scope.execution, setVariable: write } }),
    task: juelTask,
  });
  if (!result.ok) return { ok: false, message: result.message };
  return { ok: true, writes };
}
