import type { Run } from './run.js';
import { endInstance } from './scope-end.js';
import { terminateToken } from './terminate.js';

/**
 * A BPMN error that nothing in a called instance catches goes to its caller: the instance ends as
 * terminated and an `errorPropagated` effect tells the driver to throw the error at the caller's
 * call activity (where an error boundary event can catch it). Returns false for an instance that
 * no call activity started (the caller raises the incident as usual).
 */
export function propagateToCaller(run: Run, errorCode: string): boolean {
  if (run.state.calledByParent !== true) return false;
  const variables = { ...(run.state.scopes[run.state.rootScopeId]?.variables ?? {}) };
  for (const token of run.tokensIn(run.state.rootScopeId)) {
    if (run.token(token.id) !== undefined) terminateToken(run, token, 'interrupted');
  }
  endInstance(run, 'terminated');
  run.effects.push({ type: 'errorPropagated', errorCode, variables });
  return true;
}
