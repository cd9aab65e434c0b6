import type { JuelTask } from '../../../lib/juel/index.js';
import type { ElementModel } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { TokenState, UserTaskWait, Variables } from './types.js';
import { setVariables, tokenVariables } from './variables.js';

/*
 * The parts of Camunda 7 task listeners that need nothing of the engine's triggers: finding an
 * element's listeners of an event and running a JUEL listener. Kept apart from task-listeners.ts so
 * that ending a token (terminate.ts) can run `delete` listeners without importing the triggers.
 */

/** The element's listeners of one task event, as indexes into its listener list. */
export function listenersOf(element: ElementModel, event: string): number[] {
  const indexes: number[] = [];
  (element.listeners ?? []).forEach((listener, index) => {
    if (listener.kind === 'task' && listener.event === event) indexes.push(index);
  });
  return indexes;
}

/**
 * Runs the `delete` listeners of a user task whose wait is being withdrawn (the instance is
 * cancelled, a boundary event interrupts): JUEL only, so they run here and now.
 */
export function runDeleteListeners(run: Run, wait: UserTaskWait): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  const element = run.element(wait.elementId);
  for (const index of listenersOf(element, 'delete')) {
    const listener = element.listeners?.[index];
    // A failing delete listener cannot stop the withdrawal (there is no step to roll back to here).
    if (listener?.expression != null) evaluateListener(run, token, listener.expression, wait, null);
  }
}

// Evaluates a JUEL listener with `task` and `execution` that can set variables; null when it ran.
export function evaluateListener(
  run: Run,
  token: TokenState,
  expression: string,
  task: UserTaskWait,
  extra: Variables | null,
): string | null {
  const writes: Variables = {};
  const write = (name: string, value: unknown) => {
    writes[name] =
      value === undefined ? null : (JSON.parse(JSON.stringify(value ?? null)) as Variables[string]);
  };
  const scope = expressionScope(run, token);
  const juelTask: JuelTask = {
    id: task.waitId,
    name: task.name,
    assignee: task.assignee,
    taskDefinitionKey: task.elementId,
    processInstanceId: run.ctx.instance?.id ?? null,
    executionId: token.id,
    setVariable: write,
  };
  const variables = { ...tokenVariables(run.state, token), ...(extra ?? {}) };
  const result = evaluateExpression(expression, variables, {
    ...scope,
    ...(scope.execution === undefined ? {} : { execution: { ...scope.execution, setVariable: write } }),
    task: juelTask,
  });
  if (!result.ok) return result.message;
  if (Object.keys(writes).length > 0) setVariables(run, token.scopeId, writes, token.id);
  return null;
}
