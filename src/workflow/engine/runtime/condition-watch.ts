import type { ConditionalVariableEvent } from '../model/index.js';
import type { Run } from './run.js';
import type { ConditionalWait, InstanceState } from './types.js';

/** One variable write: its name, and whether it created the variable in its scope or updated it. */
export type VariableChange = [name: string, event: ConditionalVariableEvent];

/**
 * The scope a conditional wait listens in: the scope of an event sub-process, or the scope of the
 * token that waits (its local scope when it has one, so an activity's own variables reach its
 * boundary events, as in Camunda 7). Null when the token or scope has gone.
 */
export function listeningScope(state: InstanceState, wait: ConditionalWait): string | null {
  if (wait.role.kind === 'eventSubProcess') {
    return state.scopes[wait.role.scopeId] === undefined ? null : wait.role.scopeId;
  }
  const token = state.tokens[wait.tokenId];
  return token === undefined ? null : (token.localScopeId ?? token.scopeId);
}

/**
 * Variables were written to a scope: queues, for each change, an evaluation of the conditional
 * waits open now that see the scope (it is theirs or an enclosing one) and whose filters let the
 * change through. Camunda 7 dispatches one event per variable, so a non-interrupting event can fire
 * once per variable of one write. Outer waits are evaluated first (Camunda's top-down order), so an
 * interrupting one ends the inner ones before they are looked at.
 */
export function watchVariableChanges(run: Run, scopeId: string, changes: readonly VariableChange[]): void {
  const open = run.conditionalWaits();
  if (open.length === 0) return;
  for (const [name, event] of changes) {
    const concerned: { waitId: string; depth: number }[] = [];
    for (const wait of open) {
      if (wait.variableName !== null && wait.variableName !== name) continue;
      if (wait.variableEvents.length > 0 && !wait.variableEvents.includes(event)) continue;
      const listening = listeningScope(run.state, wait);
      const depth = listening === null ? null : depthBelow(run.state, listening, scopeId);
      if (depth !== null) concerned.push({ waitId: wait.waitId, depth });
    }
    if (concerned.length === 0) continue;
    concerned.sort((a, b) => a.depth - b.depth);
    run.schedule({ kind: 'conditions', waitIds: concerned.map((entry) => entry.waitId) });
  }
}

// How many scopes `scopeId` sits below `ancestorId` (0 when the same), or null when not inside it.
function depthBelow(state: InstanceState, scopeId: string, ancestorId: string): number | null {
  let depth = 0;
  for (let id: string | null = scopeId; id !== null; depth += 1) {
    if (id === ancestorId) return depth;
    id = state.scopes[id]?.parentId ?? null;
  }
  return null;
}
