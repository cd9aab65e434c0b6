import type { ListenerModel } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { TokenState, Variables } from './types.js';
import { setVariables, tokenVariables, visibleVariables } from './variables.js';

/**
 * Camunda 7 execution listeners written as JUEL expressions (docs/workflow/camunda7.md,
 * "Listeners"): `start` when a flow node is entered (after its input mappings, before its
 * behaviour) and when the instance starts, `end` when it completes (after its output mappings) and
 * when the instance completes, `take` when a sequence flow is taken. They run here, in the engine
 * call that fires them; `execution.setVariable` sets a variable the Camunda way. JavaScript
 * execution listeners are refused at deploy.
 */

/**
 * Runs the listeners of `event` among `listeners`, in order, for `token` (null for the instance's
 * own listeners, which run in the root scope). Returns null when all ran, else why one failed (the
 * caller raises the incident that fits its step).
 */
export function runExecutionListeners(
  run: Run,
  token: TokenState | null,
  listeners: readonly ListenerModel[] | undefined,
  event: 'start' | 'end' | 'take',
  at: { id: string },
): string | null {
  if (listeners === undefined) return null;
  for (const listener of listeners) {
    if (listener.kind !== 'execution' || listener.event !== event || listener.expression === null) continue;
    const scopeId = token === null ? run.state.rootScopeId : (token.localScopeId ?? token.scopeId);
    const writes: Variables = {};
    const scope = expressionScope(run, token === null ? undefined : { id: token.id, elementId: at.id });
    const variables =
      token === null ? visibleVariables(run.state, scopeId) : tokenVariables(run.state, token);
    const result = evaluateExpression(listener.expression, variables, {
      ...scope,
      ...(scope.execution === undefined
        ? {}
        : {
            execution: {
              ...scope.execution,
              setVariable: (name: string, value: unknown) => {
                writes[name] = JSON.parse(JSON.stringify(value ?? null)) as Variables[string];
              },
            },
          }),
    });
    if (!result.ok) return `execution listener (event '${event}') of '${at.id}' failed: ${result.message}`;
    if (Object.keys(writes).length > 0)
      setVariables(run, token?.scopeId ?? scopeId, writes, token?.id ?? null);
  }
  return null;
}
