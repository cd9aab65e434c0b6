import { leaveCompleted } from './complete.js';
import type { ContinuationStep } from './continuations.js';
import { takeFlows } from './flows.js';
import type { Run } from './run.js';
import type { ContinuationWait, TokenState } from './types.js';

/** The continuation job ran: the token goes on where its wait stopped it. */
export function continueAfterJob(run: Run, wait: ContinuationWait): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  run.closeWait(wait.waitId, 'completed');
  resumeContinuation(run, token, wait.then);
}

/** Goes on from a continuation point (the job's call, or an incident's retry, whose call is its own). */
export function resumeContinuation(run: Run, token: TokenState, then: ContinuationStep): void {
  token.phase = 'active';
  switch (then.kind) {
    case 'enter':
      run.pastAsyncBefore.add(token.id);
      run.schedule({ kind: 'enter', tokenId: token.id });
      return;
    case 'leave':
      leaveCompleted(run, token);
      return;
    case 'take':
      takeFlows(run, token, then.flowIds);
      return;
  }
}
