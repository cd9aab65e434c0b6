import { runExecutionListeners } from './execution-listeners.js';
import type { Run } from './run.js';
import { tokenEnded } from './scope-end.js';
import type { TokenState } from './types.js';

/**
 * Moves a token along sequence flows: the first flow keeps the token, each further flow gets a new
 * token in the same scope (an implicit parallel split). No flow at all ends the token there (an
 * implicit end, as in Camunda and Zeebe).
 */
export function takeFlows(run: Run, token: TokenState, flowIds: readonly string[]): void {
  if (flowIds.length === 0) {
    endToken(run, token);
    return;
  }
  flowIds.forEach((flowId, index) => {
    const flow = run.model.flows[flowId];
    if (flow === undefined) throw new Error(`the model has no flow '${flowId}'`);
    const moving = index === 0 ? token : run.newToken(flow.targetId, token.scopeId, flowId, token.id);
    run.history('flowTaken', flowId, moving.id, { sourceId: flow.sourceId, targetId: flow.targetId });
    moving.elementId = flow.targetId;
    moving.arrivedVia = flowId;
    moving.phase = 'active';
    // The flow is taken; a listener that waits for its script or fails enters the target after.
    if (runExecutionListeners(run, moving, { kind: 'flow', id: flowId }, 'take', { kind: 'enterTarget' }))
      run.schedule({ kind: 'enter', tokenId: moving.id });
  });
}

/** Consumes a token that reached an end, then checks whether its scope has ended. */
export function endToken(run: Run, token: TokenState): void {
  run.dropToken(token.id);
  tokenEnded(run, token.scopeId);
}
