import { dropCompensationIn, endCompensationRun } from './compensation-state.js';
import type { Run } from './run.js';
import { runDeleteListeners } from './task-listener-runs.js';
import type { TokenState } from './types.js';

/**
 * Ends a token before its element completed: first the compensation handlers it waits for and
 * everything inside its local scope (whose compensation subscriptions are dropped), then its
 * waits (boundary events included), its incidents and its place in a join. `interrupted` is used
 * when the model ends it (a boundary event, a terminate end, a completion condition), `cancelled`
 * when the instance is cancelled from outside.
 */
export function terminateToken(run: Run, token: TokenState, reason: 'interrupted' | 'cancelled'): void {
  // Already ended by an earlier termination in the same sweep (a handler ended with its throw).
  if (run.token(token.id) === undefined) return;
  if (token.compensating !== undefined) {
    // The handlers this throw waits for may run in scopes recreated for them, outside its own.
    for (const handler of Object.values(run.state.tokens)) {
      if (handler.compensationOf === token.id) terminateToken(run, handler, reason);
    }
    endCompensationRun(run, token);
  }
  if (token.localScopeId !== null) {
    for (const inner of run.tokensIn(token.localScopeId)) terminateToken(run, inner, reason);
    // What completed inside can no longer be compensated: the scope did not complete.
    dropCompensationIn(run, token.localScopeId);
    delete run.state.scopes[token.localScopeId];
  }
  for (const wait of run.waitsOf(token.id)) {
    if (wait.kind === 'userTask' && wait.role.kind === 'activity') runDeleteListeners(run, wait);
    run.closeWait(wait.waitId, reason);
  }
  for (const incident of Object.values(run.state.incidents)) {
    if (incident.tokenId === token.id)
      run.resolveIncident(incident, reason === 'cancelled' ? 'cancelled' : 'terminated');
  }
  leaveJoins(run, token.id);
  run.history('elementTerminated', token.elementId, token.id, { reason });
  run.dropToken(token.id);
}

function leaveJoins(run: Run, tokenId: string): void {
  for (const [key, join] of Object.entries(run.state.joins)) {
    for (const [flowId, tokenIds] of Object.entries(join.arrived)) {
      const rest = tokenIds.filter((id) => id !== tokenId);
      if (rest.length > 0) join.arrived[flowId] = rest;
      else delete join.arrived[flowId];
    }
    if (Object.keys(join.arrived).length === 0) delete run.state.joins[key];
  }
}
