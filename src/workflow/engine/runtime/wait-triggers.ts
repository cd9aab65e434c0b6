import { triggerBoundary } from './boundary.js';
import { triggerEventSubProcess } from './event-sub-processes.js';
import { takeEventBranch } from './gateways.js';
import type { Run } from './run.js';
import type { Variables, Wait } from './types.js';

/**
 * The event an open wait waits for has happened (its work is done, its message, timer or signal
 * came): the wait's role says what moves on, its activity, a boundary event, an event-based
 * gateway's branch or an event sub-process.
 */
export function triggerWait(run: Run, wait: Wait, variables: Variables | null): void {
  switch (wait.role.kind) {
    case 'activity':
      run.closeWait(wait.waitId, 'completed');
      run.schedule({ kind: 'complete', tokenId: wait.tokenId, variables });
      return;
    case 'boundary':
      triggerBoundary(run, wait, variables);
      return;
    case 'eventGateway':
      takeEventBranch(run, wait, variables);
      return;
    case 'eventSubProcess':
      triggerEventSubProcess(run, wait, variables);
      return;
  }
}
