import { finishCompletion } from './complete.js';
import { enterBehaviour } from './enter.js';
import { terminateAfterListeners } from './events.js';
import { listenerFailed, runListenerQueue, setListenerVariables } from './execution-listeners.js';
import { completeBranch, takeBranchFlow, takeGatewayFlows } from './gateways.js';
import type { Run } from './run.js';
import { finishInstance } from './scope-end.js';
import type {
  AfterExecutionListeners,
  PendingExecutionListeners,
  ScriptWait,
  TokenState,
  Variables,
} from './types.js';

/*
 * Going on after execution listeners that stopped: a JavaScript listener's script answered, or
 * the incident of one that failed is retried. The listeners after it run, then the step they
 * interrupted goes on where it stopped. Kept apart from execution-listeners.ts, which the steps
 * themselves import.
 */

/** A JavaScript listener's answer: its variables are set, the rest run, then the step goes on. */
export function resumeExecutionListeners(run: Run, wait: ScriptWait, variables: Variables | null): void {
  const pending = wait.executionListener;
  const token = run.token(wait.tokenId);
  run.closeWait(wait.waitId, 'completed');
  if (pending === undefined || token === undefined) return;
  token.phase = 'active';
  if (variables !== null) setListenerVariables(run, token, pending.on, variables);
  continueExecutionListeners(run, token, pending);
}

/**
 * A JavaScript listener failed: an incident whose retry runs it (and those after it) again; a
 * process `end` listener's failure is recorded and the rest run.
 */
export function failExecutionListener(run: Run, wait: ScriptWait, message: string): void {
  const pending = wait.executionListener;
  const token = run.token(wait.tokenId);
  run.closeWait(wait.waitId, 'failed');
  if (pending === undefined || token === undefined) return;
  const index = Number(wait.extension.attributes.index);
  token.phase = 'active';
  if (listenerFailed(run, token, { ...pending, queue: [index, ...pending.queue] }, message))
    continueExecutionListeners(run, token, pending);
}

/** Runs the queued listeners; when all ran, the step they interrupted goes on. */
export function continueExecutionListeners(
  run: Run,
  token: TokenState,
  pending: PendingExecutionListeners,
): void {
  if (runListenerQueue(run, token, pending)) afterListeners(run, token, pending.then);
}

function afterListeners(run: Run, token: TokenState, then: AfterExecutionListeners): void {
  token.phase = 'active';
  switch (then.kind) {
    case 'enterStart':
    case 'enterTarget':
      run.schedule({ kind: 'enter', tokenId: token.id });
      return;
    case 'behaviour':
      enterBehaviour(run, token);
      return;
    case 'complete':
      finishCompletion(run, token);
      return;
    case 'takeFlows':
      takeGatewayFlows(run, token, then.flowIds);
      return;
    case 'terminate':
      terminateAfterListeners(run, token);
      return;
    case 'takeBranch':
      takeBranchFlow(run, token, then.flowId, then.variables);
      return;
    case 'completeBranch':
      completeBranch(run, token, then.variables);
      return;
    case 'endInstance':
      finishInstance(run, 'completed');
      return;
  }
}
