import type { SubProcessModel } from '../model/index.js';
import { openWaits, prepareBoundaryWaits } from './boundary.js';
import { openEventSubProcesses } from './event-sub-processes.js';
import type { Run } from './run.js';
import type { TokenState } from './types.js';

/**
 * Enters an embedded sub-process: its local scope (holding mapped inputs, or a multi-instance
 * iteration's variables) becomes the scope of a new token at its start event.
 */
export function enterSubProcess(run: Run, token: TokenState, element: SubProcessModel): void {
  const startId = element.startEventIds[0];
  if (startId === undefined) {
    run.raiseIncident(token, 'noPath', `sub-process '${element.id}' has no start event`, {
      action: 'activate',
    });
    return;
  }
  const boundaries = prepareBoundaryWaits(run, token, element);
  if (boundaries === null) return;
  const scope = run.localScopeOf(token);
  if (!openEventSubProcesses(run, scope.id, token.id, element, token)) return;
  token.phase = 'waiting';
  openWaits(run, boundaries);
  const child = run.newToken(startId, scope.id, null, token.id);
  run.schedule({ kind: 'enter', tokenId: child.id });
}
