import type { ElementModel, FlowModel } from '../model/index.js';
import { buildCatchWait } from './catch-waits.js';
import { arriveAtComplexJoin, splitAfterReset } from './complex-joins.js';
import { stopsAfter } from './continuations.js';
import { chooseFlows, flowsOf } from './flow-conditions.js';
import { runExecutionListeners } from './execution-listeners.js';
import { takeFlows } from './flows.js';
import { arriveAtJoin } from './joins.js';
import type { Run } from './run.js';
import type { TokenState, Variables, Wait } from './types.js';

type Gateway = Extract<ElementModel, { type: `${string}Gateway` }>;

/**
 * Enters a gateway. Converging parallel and inclusive gateways (more than one incoming flow) wait
 * in a join; every other gateway splits at once. An event-based gateway opens one wait per branch.
 */
export function enterGateway(run: Run, token: TokenState, element: Gateway): void {
  switch (element.type) {
    case 'parallelGateway':
    case 'inclusiveGateway':
      if (element.incoming.length > 1) {
        arriveAtJoin(run, token, element);
        return;
      }
      break;
    case 'complexGateway':
      if (element.incoming.length > 1) {
        arriveAtComplexJoin(run, token, element);
        return;
      }
      break;
    case 'eventBasedGateway':
      openEventBranches(run, token, element);
      return;
    case 'exclusiveGateway':
      break;
  }
  run.history('elementActivated', element.id, token.id);
  splitGateway(run, token);
}

/**
 * Chooses and takes a gateway's outgoing flows. Parallel: all. Exclusive: the first whose condition
 * is true, in document order (a flow without a condition counts as true, as in Camunda 7). Inclusive and complex: every one whose condition is true (a complex
 * gateway's conditions see `waitingForStart` = true, BPMN 13.3.5). With none true the
 * default flow is taken, and without one the token stops with an incident. A condition is true only
 * when it evaluates to `true`; null is false, any other value is an incident.
 */
export function splitGateway(run: Run, token: TokenState): void {
  if (token.complexReset === true) {
    splitAfterReset(run, token);
    return;
  }
  const element = run.element(token.elementId);
  const flows = flowsOf(run, element.outgoing);
  let taken: FlowModel[];
  if (element.type === 'parallelGateway') {
    taken = flows;
  } else {
    const extra: Variables = element.type === 'complexGateway' ? { waitingForStart: true } : {};
    const all = element.type === 'inclusiveGateway' || element.type === 'complexGateway';
    const chosen = chooseFlows(run, token, flows, all, extra);
    if (chosen === null) return;
    taken = chosen;
  }
  if (taken.length === 0) {
    run.raiseIncident(
      token,
      'noPath',
      `no condition of ${element.type} '${element.id}' is true and it has no default flow`,
      { action: 'split' },
    );
    return;
  }
  const flowIds = taken.map((flow) => flow.id);
  const on = { kind: 'element' as const, id: element.id };
  if (runExecutionListeners(run, token, on, 'end', { kind: 'takeFlows', flowIds }))
    takeGatewayFlows(run, token, flowIds);
}

/** Leaves a gateway by the flows it chose, once its `end` listeners are done. */
export function takeGatewayFlows(run: Run, token: TokenState, flowIds: string[]): void {
  const element = run.element(token.elementId);
  token.phase = 'active';
  if (element.outgoing.length > 1) run.history('gatewayDecision', element.id, token.id, { taken: flowIds });
  run.history('elementCompleted', element.id, token.id);
  if (stopsAfter(run, token, { kind: 'take', flowIds })) return;
  takeFlows(run, token, flowIds);
}

function openEventBranches(run: Run, token: TokenState, element: Gateway): void {
  run.history('elementActivated', element.id, token.id);
  const waits: Wait[] = [];
  for (const flowId of element.outgoing) {
    const target = run.element(run.model.flows[flowId]?.targetId ?? '');
    const role = { kind: 'eventGateway' as const, flowId, targetElementId: target.id };
    const trigger =
      target.type === 'receiveTask'
        ? { kind: 'receive' as const, messageName: target.messageName, correlationKey: target.correlationKey }
        : target.type === 'intermediateCatchEvent'
          ? target.eventDefinition
          : { kind: 'none' as const };
    const built = buildCatchWait(run, token, target.id, trigger, role);
    if (!built.ok) {
      run.raiseIncident(token, 'expression', built.message, { action: 'activate' });
      return;
    }
    waits.push(built.wait);
  }
  token.phase = 'waiting';
  for (const wait of waits) run.openWait(wait);
}

/**
 * One branch of an event-based gateway fired: the other branches are withdrawn, the token takes the
 * branch's flow and the catch event (or receive task) there completes at once.
 */
export function takeEventBranch(run: Run, wait: Wait, variables: Variables | null): void {
  if (wait.role.kind !== 'eventGateway') return;
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  run.closeWait(wait.waitId, 'completed');
  for (const other of run.waitsOf(token.id)) run.closeWait(other.waitId, 'cancelled');
  const { flowId } = wait.role;
  const on = { kind: 'element' as const, id: token.elementId };
  if (runExecutionListeners(run, token, on, 'end', { kind: 'takeBranch', flowId, variables }))
    takeBranchFlow(run, token, flowId, variables);
}

/**
 * Takes the flow of an event-based gateway's branch that fired, once the gateway's `end` listeners
 * are done; its catch event completes once the flow's `take` listeners are done.
 */
export function takeBranchFlow(
  run: Run,
  token: TokenState,
  flowId: string,
  variables: Variables | null,
): void {
  const targetElementId = run.model.flows[flowId]?.targetId ?? '';
  token.phase = 'active';
  run.history('gatewayDecision', token.elementId, token.id, { taken: [flowId] });
  run.history('elementCompleted', token.elementId, token.id);
  run.history('flowTaken', flowId, token.id, { sourceId: token.elementId, targetId: targetElementId });
  token.elementId = targetElementId;
  token.arrivedVia = flowId;
  const on = { kind: 'flow' as const, id: flowId };
  if (runExecutionListeners(run, token, on, 'take', { kind: 'completeBranch', variables }))
    completeBranch(run, token, variables);
}

/** The catch event (or receive task) of a fired branch completes with the event's variables. */
export function completeBranch(run: Run, token: TokenState, variables: Variables | null): void {
  token.phase = 'active';
  run.history('elementActivated', token.elementId, token.id);
  run.schedule({ kind: 'complete', tokenId: token.id, variables });
}
