import type { ElementModel } from '../model/index.js';
import { openEventSubProcesses } from './event-sub-processes.js';
import type { Run } from './run.js';
import type { TokenState } from './types.js';

/** True for a receive task that starts its process (instantiate="true", no incoming flow). */
export function instantiatesProcess(element: ElementModel): boolean {
  return element.type === 'receiveTask' && element.instantiate === true && element.incoming.length === 0;
}

/**
 * The first token of an instance started by the message of an instantiating receive task: that
 * message has arrived (its variables are the instance's), so the task completes at once, once the
 * process's event sub-processes listen, as after a message start event.
 */
export function enterInstantiatingReceive(run: Run, token: TokenState): void {
  const rootId = run.state.rootScopeId;
  if (!openEventSubProcesses(run, rootId, rootId, run.model, token)) return;
  run.schedule({ kind: 'complete', tokenId: token.id, variables: null });
}
