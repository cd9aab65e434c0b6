import { chooseFlows, flowsOf } from './flow-conditions.js';
import { takeFlows } from './flows.js';
import type { Run } from './run.js';
import type { TokenState } from './types.js';

/**
 * A token leaves the activity or event it completed (BPMN 13.2.1, Camunda 7): by every outgoing flow
 * without a condition (an implicit parallel split) and every one whose condition is true; by the
 * default flow only when no other flow is taken. When the element has outgoing flows but none can be
 * taken, the token stops with a `noPath` incident, as Camunda 7 throws; retrying chooses again.
 * An element without outgoing flows is an implicit end; a link throw event jumps to its catch.
 */
export function leaveElement(run: Run, token: TokenState): void {
  const element = run.element(token.elementId);
  if (element.type === 'intermediateThrowEvent' && element.eventDefinition.kind === 'link') {
    jumpToLinkCatch(run, token, element.eventDefinition.targetId);
    return;
  }
  const flows = flowsOf(run, element.outgoing);
  if (flows.every((flow) => flow.condition === null && !flow.isDefault)) {
    takeFlows(run, token, element.outgoing);
    return;
  }
  const taken = chooseFlows(run, token, flows, true);
  if (taken === null) return;
  if (taken.length === 0) {
    run.raiseIncident(
      token,
      'noPath',
      `no condition of the flows out of ${element.type} '${element.id}' is true and it has no default flow`,
      { action: 'split' },
    );
    return;
  }
  takeFlows(
    run,
    token,
    taken.map((flow) => flow.id),
  );
}

// A link throw goes on at the catch event of the same name in its scope (BPMN 13.5.4), like a
// sequence flow drawn between the two.
function jumpToLinkCatch(run: Run, token: TokenState, targetId: string | null): void {
  if (targetId === null) throw new Error(`link throw '${token.elementId}' has no catch event`);
  token.elementId = targetId;
  token.arrivedVia = null;
  token.phase = 'active';
  run.schedule({ kind: 'enter', tokenId: token.id });
}
