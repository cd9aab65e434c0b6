import { completeElement } from './complete.js';
import { enterElement } from './enter.js';
import { splitGateway } from './gateways.js';
import { fireInclusiveJoins } from './joins.js';
import type { Action, Run } from './run.js';

/**
 * Runs the agenda until every token waits (or the instance ended): the synchronous, Camunda 7 style
 * of execution. Inclusive joins are checked only when nothing else can move, since a token still
 * on the agenda may be on its way to one. Sets the status to `incident` while incidents are open.
 */
export function drain(run: Run): void {
  const { state } = run;
  for (;;) {
    for (let action = run.agenda.shift(); action !== undefined; action = run.agenda.shift()) {
      if (!isLive(state.status)) break;
      perform(run, action);
    }
    if (!isLive(state.status) || !fireInclusiveJoins(run)) break;
  }
  if (isLive(state.status)) state.status = Object.keys(state.incidents).length > 0 ? 'incident' : 'running';
}

/** True while the instance has not ended. */
export function isLive(status: string): boolean {
  return status === 'running' || status === 'incident';
}

function perform(run: Run, action: Action): void {
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
      splitGateway(run, token);
      return;
  }
}
