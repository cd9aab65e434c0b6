import { hasExecutionListeners, runExecutionListeners } from './execution-listeners.js';
import type { Run } from './run.js';
import type { InstanceStatus } from './types.js';

/**
 * Called when a token of a scope is gone: a scope with no token left has ended. The root ends the
 * instance as completed; a sub-process (or one multi-instance iteration of it) completes its
 * owner token, which then leaves the sub-process.
 */
export function tokenEnded(run: Run, scopeId: string): void {
  if (run.tokensIn(scopeId).length > 0) return;
  const scope = run.state.scopes[scopeId];
  if (scope === undefined) return;
  if (scope.parentId === null) {
    endInstance(run, 'completed');
    return;
  }
  const owner = scope.ownerTokenId === null ? undefined : run.token(scope.ownerTokenId);
  // A multi-instance body's instances are counted by the loop itself, not here.
  if (owner === undefined || owner.multiInstance !== null) return;
  run.schedule({ kind: 'complete', tokenId: owner.id, variables: null });
}

/**
 * Ends the instance: drops every scope but the root (whose variables stay readable). The `delete`
 * listeners of the tasks it withdrew may still run after (their waits outlive it).
 */
export function endInstance(
  run: Run,
  status: Extract<InstanceStatus, 'completed' | 'cancelled' | 'terminated'>,
): void {
  // The instance's `end` listeners run as it completes, held by a token of their own while a
  // JavaScript one waits for its script; one that fails cannot stop the end (see camunda7.md).
  if (status === 'completed' && hasExecutionListeners(run, { kind: 'process' }, 'end')) {
    // Nothing may start while they run: the event sub-process starts close first.
    closeWaits(run);
    const holder = run.newToken(run.model.processKey, run.state.rootScopeId, null);
    if (!runExecutionListeners(run, holder, { kind: 'process' }, 'end', { kind: 'endInstance' })) return;
  }
  finishInstance(run, status);
}

/** Ends the instance once the process's `end` listeners are done (see {@link endInstance}). */
export function finishInstance(
  run: Run,
  status: Extract<InstanceStatus, 'completed' | 'cancelled' | 'terminated'>,
): void {
  const { state } = run;
  state.status = status;
  closeWaits(run);
  for (const id of Object.keys(state.scopes)) if (id !== state.rootScopeId) delete state.scopes[id];
  state.tokens = {};
  state.joins = {};
  // Nothing can be compensated once the instance has ended (Camunda 7 drops its subscriptions too).
  delete state.compensation;
  run.clearAgenda();
  run.history('instanceEnded', run.model.processKey, null, { status });
  run.effects.push({ type: 'instanceEnded', status });
}

// Closes the waits that outlive every token (the event sub-process starts of the process), but not
// those of withdrawn tasks' JavaScript `delete` listeners, which run after the instance has ended.
function closeWaits(run: Run): void {
  for (const wait of Object.values(run.state.waits)) {
    if (wait.kind !== 'script' || wait.deleteListener === undefined) run.closeWait(wait.waitId, 'cancelled');
  }
}
