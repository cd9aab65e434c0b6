import { completeElement } from './complete.js';
import { evaluateConditions } from './conditions.js';
import { enterElement } from './enter.js';
import { splitGateway } from './gateways.js';
import { resetBlockedComplexJoins } from './complex-joins.js';
import { fireInclusiveJoins } from './joins.js';
import { leaveElement } from './leave.js';
import type { Action, Run } from './run.js';

/**
 * Runs the agenda until every token waits (or the instance ended): the synchronous, Camunda 7 style
 * of execution. Inclusive joins are checked only when nothing else can move, since a token still
 * on the agenda may be on its way to one. Sets the status to `incident` while incidents are open.
 */
export function drain(run: Run): void {
  while (!drainSome(run, Number.POSITIVE_INFINITY));
}

/** Actions run between two pauses of {@link drainPausing}. */
export const ACTIONS_PER_SLICE = 200;

/**
 * {@link drain} with a `pause` after every {@link ACTIONS_PER_SLICE} actions, so a call that runs
 * thousands of actions (a large multi-instance body) lets the driver's process serve other work
 * between slices. The result is the same as {@link drain}'s.
 */
export async function drainPausing(run: Run, pause: () => Promise<void>): Promise<void> {
  while (!drainSome(run, ACTIONS_PER_SLICE)) await pause();
}

// Runs up to `budget` actions; true when the agenda is done.
function drainSome(run: Run, budget: number): boolean {
  const { state } = run;
  let performed = 0;
  for (;;) {
    for (let action = run.nextAction(); action !== undefined; action = run.nextAction()) {
      if (!isLive(state.status)) break;
      perform(run, action);
      performed += 1;
      if (performed >= budget) return false;
    }
    if (!isLive(state.status) || !(fireInclusiveJoins(run) || resetBlockedComplexJoins(run))) break;
  }
  if (isLive(state.status)) state.status = Object.keys(state.incidents).length > 0 ? 'incident' : 'running';
  return true;
}

/** True while the instance has not ended. */
export function isLive(status: string): boolean {
  return status === 'running' || status === 'incident';
}

function perform(run: Run, action: Action): void {
  if (action.kind === 'conditions') {
    run.settleEvaluations(action.waitIds);
    evaluateConditions(run, action.waitIds);
    return;
  }
  const token = run.token(action.tokenId);
  // A token ended by something that ran after its action was queued (a terminate end, an error).
  if (token === undefined) return;
  switch (action.kind) {
    case 'enter':
      enterElement(run, token);
      return;
    case 'complete':
      completeElement(run, token, action.variables);
      return;
    case 'split':
      // A retried `noPath` or condition incident of an activity chooses its flows again too.
      if (run.element(token.elementId).type.endsWith('Gateway')) splitGateway(run, token);
      else leaveElement(run, token);
      return;
  }
}
