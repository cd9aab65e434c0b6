import { evaluateOwnConditions } from './conditions.js';
import { handlerCompleted } from './compensation.js';
import { recordCompensation } from './compensation-state.js';
import { stopsAfter } from './continuations.js';
import { runExecutionListeners } from './execution-listeners.js';
import { leaveElement } from './leave.js';
import { applyCompletion } from './mappings.js';
import { instanceCompleted } from './multi-instance.js';
import type { Run } from './run.js';
import { iterationCompleted, standardLoopOf } from './standard-loop.js';
import type { TokenState, Variables } from './types.js';

/**
 * Completes the element a token is at: stores the variables it completed with and its outputs,
 * lets its own conditional boundary events see them (an interrupting one ends it instead),
 * withdraws its boundary waits, records it for compensation when it is compensable, ends its local
 * scope and leaves by its outgoing flows (see `leaveElement`). An instance of a multi-instance
 * activity (or an iteration of a standard loop) reports to its body instead of leaving; a
 * compensation handler lets the next handler run.
 */
export function completeElement(run: Run, token: TokenState, variables: Variables | null): void {
  const element = run.element(token.elementId);
  token.phase = 'active';
  if (!applyCompletion(run, token, element, variables)) return;
  if (!evaluateOwnConditions(run, token)) return;
  const on = { kind: 'element' as const, id: element.id };
  if (runExecutionListeners(run, token, on, 'end', { kind: 'complete' })) finishCompletion(run, token);
}

/**
 * Completes the element a token is at once its `end` listeners are done: withdraws its boundary
 * waits, records it (for compensation too) and leaves, or reports to its loop or throw.
 */
export function finishCompletion(run: Run, token: TokenState): void {
  const element = run.element(token.elementId);
  token.phase = 'active';
  for (const wait of run.waitsOf(token.id)) run.closeWait(wait.waitId, 'cancelled');
  run.history(
    'elementCompleted',
    element.id,
    token.id,
    token.loopCounter === null ? {} : { loopCounter: token.loopCounter },
  );
  recordCompensation(run, token, element);
  if (token.loopCounter === null && token.compensationOf === undefined) {
    if (token.localScopeId !== null) delete run.state.scopes[token.localScopeId];
    token.localScopeId = null;
    token.multiInstance = null;
  }
  if (stopsAfter(run, token, { kind: 'leave' })) return;
  leaveCompleted(run, token);
}

/**
 * What follows an element's completion (after its `asyncAfter` job, when it has one): an instance of
 * a multi-instance activity or an iteration of a standard loop reports to its body, a compensation
 * handler lets the next one run, any other token leaves by the element's outgoing flows.
 */
export function leaveCompleted(run: Run, token: TokenState): void {
  const element = run.element(token.elementId);
  if (token.loopCounter !== null) {
    if (standardLoopOf(element) !== null) iterationCompleted(run, token);
    else instanceCompleted(run, token);
    return;
  }
  if (token.compensationOf !== undefined) {
    handlerCompleted(run, token);
    return;
  }
  leaveElement(run, token);
}
