import { triggerBoundary } from './boundary.js';
import { triggerEventSubProcess } from './event-sub-processes.js';
import { takeEventBranch } from './gateways.js';
import type { Run } from './run.js';
import type { Variables, Wait } from './types.js';

/**
 * A wait's trigger happened (a worker answered, a message or timer arrived, a condition became
 * true): moves on what the wait's role says — the element's own work completes, a boundary event
 * or event sub-process fires, or an event-based gateway takes the branch.
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
