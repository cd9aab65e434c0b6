import type { ElementModel, ListenerModel } from '../model/index.js';
import type { Run } from './run.js';
import type { PendingTaskListeners, ScriptWait, TokenState, UserTaskWait, Variables } from './types.js';
import { setVariables, tokenVariables } from './variables.js';
import { evaluateListener, listenersOf, TASK_LISTENER_SCRIPT } from './task-listener-runs.js';
import { triggerWait } from './wait-triggers.js';

/**
 * Camunda 7 task listeners of a user task (docs/workflow/camunda7.md, "Listeners"). JUEL listeners
 * run here, in the pure engine; a JavaScript listener opens a script wait named
 * {@link TASK_LISTENER_SCRIPT} that the driver answers at once from the sandbox (a
 * `taskListenerDone` event), so what every listener did is written with the step that fired them.
 * The listeners still to run and what follows the last one travel on that wait.
 */

/** True when the user task has task listeners of this event. */
export function hasTaskListeners(element: ElementModel, event: string): boolean {
  return listenersOf(element, event).length > 0;
}

/**
 * Creates a user task whose element has `create` or `assignment` listeners: the assignment
 * listeners run first when the model assigned the task (Camunda fires `assignment` before
 * `create`), then the create listeners; the task's wait opens after the last, with the assignee
 * they left. Returns false when the element has none (the caller opens the wait itself).
 */
export function createWithListeners(
  run: Run,
  token: TokenState,
  element: ElementModel,
  task: UserTaskWait,
): boolean {
  const queue = [
    ...(task.assignee === null ? [] : listenersOf(element, 'assignment')),
    ...listenersOf(element, 'create'),
  ];
  if (queue.length === 0) return false;
  token.phase = 'waiting';
  runTaskListeners(run, token, { queue, task, then: { kind: 'open' } });
  return true;
}

/**
 * Changes the assignee of an open user task (a claim or unclaim) and runs its `assignment`
 * listeners; the row follows with a `taskAssigned` effect once they have run.
 */
export function assignTask(run: Run, wait: UserTaskWait, assignee: string | null): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  const task = { ...wait, assignee };
  runTaskListeners(run, token, {
    queue: listenersOf(run.element(wait.elementId), 'assignment'),
    task,
    then: { kind: 'assigned' },
  });
}

/**
 * Completes a user task through its `complete` listeners (they see the variables it is completed
 * with); returns false when it has none.
 */
export function completeWithListeners(run: Run, wait: UserTaskWait, variables: Variables | null): boolean {
  const queue = listenersOf(run.element(wait.elementId), 'complete');
  const token = run.token(wait.tokenId);
  if (queue.length === 0 || token === undefined) return false;
  runTaskListeners(run, token, { queue, task: { ...wait }, then: { kind: 'complete', variables } });
  return true;
}

/** Runs queued listeners until one is JavaScript (its wait opens) or one fails (an incident). */
export function runTaskListeners(run: Run, token: TokenState, pending: PendingTaskListeners): void {
  const element = run.element(token.elementId);
  token.phase = 'waiting';
  while (pending.queue.length > 0) {
    const index = pending.queue[0] as number;
    const listener = element.listeners?.[index];
    if (listener === undefined) {
      pending.queue.shift();
      continue;
    }
    if (listener.script !== null) {
      openListenerWait(run, token, listener, { ...pending, queue: pending.queue.slice(1) });
      return;
    }
    const before = pending.task.assignee;
    const extra = pending.then.kind === 'complete' ? pending.then.variables : null;
    const variables = { ...tokenVariables(run.state, token), ...(extra ?? {}) };
    const result = evaluateListener(run, token, listener.expression ?? '', pending.task, variables);
    if (!result.ok) {
      failListeners(run, token, pending, `${listenerLabel(listener, element.id)} failed: ${result.message}`);
      return;
    }
    if (Object.keys(result.writes).length > 0) setVariables(run, token.scopeId, result.writes, token.id);
    pending.queue.shift();
    afterListener(element, listener, pending, before);
  }
  finishTaskListeners(run, token, pending);
}

/** A JavaScript listener's answer: its variables are set, its assignee taken, the rest run. */
export function resumeTaskListeners(
  run: Run,
  wait: ScriptWait,
  variables: Variables | null,
  assignee: string | null | undefined,
): void {
  const pending = wait.taskListener;
  const token = run.token(wait.tokenId);
  run.closeWait(wait.waitId, 'completed');
  if (pending === undefined || token === undefined) return;
  if (variables !== null && Object.keys(variables).length > 0)
    setVariables(run, token.scopeId, variables, token.id);
  const before = pending.task.assignee;
  const task = assignee === undefined ? pending.task : { ...pending.task, assignee };
  const listener: Pick<ListenerModel, 'event'> = { event: wait.extension.attributes.event ?? '' };
  const next = { ...pending, task };
  afterListener(run.element(token.elementId), listener, next, before);
  runTaskListeners(run, token, next);
}

/** A JavaScript listener failed: an incident whose retry runs it (and those after it) again. */
export function failTaskListener(run: Run, wait: ScriptWait, message: string): void {
  const pending = wait.taskListener;
  const token = run.token(wait.tokenId);
  run.closeWait(wait.waitId, 'failed');
  if (pending === undefined || token === undefined) return;
  const index = Number(wait.extension.attributes.index);
  failListeners(run, token, { ...pending, queue: [index, ...pending.queue] }, message);
}

// A listener that changed the assignee (outside an assignment listener) fires the assignment listeners.
function afterListener(
  element: ElementModel,
  listener: Pick<ListenerModel, 'event'>,
  pending: PendingTaskListeners,
  before: string | null,
): void {
  if (listener.event === 'assignment' || pending.task.assignee === before) return;
  const assignment = listenersOf(element, 'assignment');
  pending.queue = [...pending.queue.filter((index) => !assignment.includes(index)), ...assignment];
}

function failListeners(run: Run, token: TokenState, pending: PendingTaskListeners, message: string): void {
  run.raiseIncident(token, 'expression', message, { action: 'taskListeners', pending });
}

function finishTaskListeners(run: Run, token: TokenState, pending: PendingTaskListeners): void {
  const { task, then } = pending;
  switch (then.kind) {
    case 'open':
      token.phase = 'waiting';
      run.openWait(task);
      return;
    case 'assigned': {
      const wait = run.state.waits[task.waitId];
      if (wait?.kind !== 'userTask') return;
      wait.assignee = task.assignee;
      if (token.phase === 'failed') token.phase = 'waiting';
      run.effects.push({ type: 'taskAssigned', waitId: task.waitId, assignee: task.assignee });
      return;
    }
    case 'complete': {
      const wait = run.state.waits[task.waitId];
      if (wait === undefined) return;
      token.phase = 'waiting';
      triggerWait(run, wait, then.variables);
      return;
    }
  }
}

function openListenerWait(
  run: Run,
  token: TokenState,
  listener: ListenerModel,
  pending: PendingTaskListeners,
): void {
  const element = run.element(token.elementId);
  const index = element.listeners?.indexOf(listener) ?? -1;
  const completing = pending.then.kind === 'complete' ? pending.then.variables : null;
  const wait: ScriptWait = {
    waitId: run.ctx.newId(),
    elementId: token.elementId,
    tokenId: token.id,
    role: { kind: 'activity' },
    openedAt: run.now(),
    kind: 'script',
    extension: {
      name: TASK_LISTENER_SCRIPT,
      attributes: { event: listener.event, index: String(index) },
      children: [],
      text: listener.script ?? '',
    },
    variables: { ...tokenVariables(run.state, token), ...(completing ?? {}) },
    taskListener: pending,
  };
  run.openWait(wait);
}

function listenerLabel(listener: ListenerModel, elementId: string): string {
  return `${listener.kind} listener (event '${listener.event}') of '${elementId}'`;
}
