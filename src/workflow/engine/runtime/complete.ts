import { leaveElement } from './leave.js';
import { applyCompletion } from './mappings.js';
import { instanceCompleted } from './multi-instance.js';
import type { Run } from './run.js';
import { iterationCompleted, standardLoopOf } from './standard-loop.js';
import type { TokenState, Variables } from './types.js';

/**
 * Completes the element a token is at: stores the variables it completed with and its outputs,
 * withdraws its boundary waits, ends its local scope and leaves by its outgoing flows (see `leaveElement`). An instance
 * of a multi-instance activity (or an iteration of a standard loop) reports to its body instead of
 * leaving.
 */
export function completeElement(run: Run, token: TokenState, variables: Variables | null): void {
  const element = run.element(token.elementId);
  token.phase = 'active';
  if (!applyCompletion(run, token, element, variables)) return;
  for (const wait of run.waitsOf(token.id)) run.closeWait(wait.waitId, 'cancelled');
  run.history(
    'elementCompleted',
    element.id,
    token.id,
    token.loopCounter === null ? {} : { loopCounter: token.loopCounter },
  );
  if (token.loopCounter !== null) {
    if (standardLoopOf(element) !== null) iterationCompleted(run, token);
    else instanceCompleted(run, token);
    return;
  }
  if (token.localScopeId !== null) delete run.state.scopes[token.localScopeId];
  token.localScopeId = null;
  token.multiInstance = null;
  leaveElement(run, token);
}
