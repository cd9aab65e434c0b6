import type { ComplexGatewayModel } from '../model/index.js';
import { chooseFlows, flowsOf } from './flow-conditions.js';
import { evaluateExpression, expressionScope } from './expression.js';
import { endToken, takeFlows } from './flows.js';
import { joinKey, recordArrival } from './joins.js';
import { holdsUpGateway } from './reachability.js';
import type { Run } from './run.js';
import type { JoinState, TokenState } from './types.js';
import { tokenVariables } from './variables.js';

/**
 * A token arrives at a converging complex gateway (BPMN 13.3.5). Waiting for start, the gateway
 * fires as soon as its `activationCondition` holds; the condition sees the token's variables and
 * `activationCount`, the number of incoming flows holding a token. Firing consumes one token per
 * such flow and the gateway splits like an inclusive gateway. It then waits for reset: a token on
 * one of the other incoming flows is of the same round and is consumed by the reset; a token on a
 * flow that already delivered in this round waits for the next round (see {@link resetJoin}).
 */
export function arriveAtComplexJoin(run: Run, token: TokenState, gateway: ComplexGatewayModel): void {
  const join = recordArrival(run, token, gateway.id);
  checkJoin(run, join, gateway, token);
}

/**
 * Resets every complex gateway waiting for reset that no token of its scope holds up any more
 * (BPMN 2.0.2 §13.3.5): the expected flows are those it consumed nothing from when it fired and
 * that have no token yet; a token holds it up when it can reach one of them but none of the
 * gateway's incoming flows that already delivered (else it belongs to the next round). Returns true
 * when one reset.
 */
export function resetBlockedComplexJoins(run: Run): boolean {
  for (const join of Object.values(run.state.joins)) {
    const gateway = run.element(join.gatewayId);
    if (gateway.type !== 'complexGateway' || join.resetPending === undefined) continue;
    const expected = join.resetPending.filter((flowId) => (join.arrived[flowId]?.length ?? 0) === 0);
    const waiting = new Set(Object.values(join.arrived).flat());
    const heldUp = run
      .tokensIn(join.scopeId)
      .some(
        (token) => !waiting.has(token.id) && holdsUpGateway(run.model, token.elementId, gateway, expected),
      );
    if (heldUp) continue;
    resetJoin(run, join, gateway);
    return true;
  }
  return false;
}

function checkJoin(run: Run, join: JoinState, gateway: ComplexGatewayModel, arriving: TokenState): void {
  if (join.resetPending !== undefined) {
    if (join.resetPending.every((flowId) => (join.arrived[flowId]?.length ?? 0) > 0)) {
      resetJoin(run, join, gateway);
    }
    return;
  }
  const holding = gateway.incoming.filter((flowId) => (join.arrived[flowId]?.length ?? 0) > 0);
  const variables = { ...tokenVariables(run.state, arriving), activationCount: holding.length };
  const result = evaluateExpression(
    gateway.activationCondition ?? 'false',
    variables,
    expressionScope(run, arriving),
  );
  if (!result.ok || (result.value !== null && typeof result.value !== 'boolean')) {
    const why = result.ok ? `gave ${JSON.stringify(result.value)}, not a boolean` : result.message;
    // The token leaves the join so that retrying (which enters the gateway again) counts it once.
    take(join, [arriving.id]);
    if (Object.keys(join.arrived).length === 0) delete run.state.joins[joinKey(join.scopeId, join.gatewayId)];
    run.raiseIncident(arriving, 'expression', `activation condition of '${gateway.id}': ${why}`, {
      action: 'activate',
    });
    return;
  }
  if (result.value !== true) return;
  const consumed = holding.map((flowId) => join.arrived[flowId]?.[0] ?? '');
  take(join, consumed);
  const pending = gateway.incoming.filter((flowId) => !holding.includes(flowId));
  if (pending.length > 0) join.resetPending = pending;
  else if (Object.keys(join.arrived).length === 0)
    delete run.state.joins[joinKey(join.scopeId, join.gatewayId)];
  const [keep, ...drop] = consumed;
  const survivor = keep === undefined ? undefined : run.token(keep);
  for (const id of drop) run.dropToken(id);
  if (survivor === undefined) return;
  survivor.phase = 'active';
  survivor.arrivedVia = null;
  run.history('elementActivated', gateway.id, survivor.id, {
    joined: consumed,
    activationCount: holding.length,
  });
  run.schedule({ kind: 'split', tokenId: survivor.id });
}

/**
 * The reset of a complex gateway: it consumes one token from each flow it still expected that has
 * one and splits again in the reset phase (see {@link splitAfterReset}). It then waits for start
 * again, with the tokens of the next round that arrived meanwhile.
 */
function resetJoin(run: Run, join: JoinState, gateway: ComplexGatewayModel): void {
  const pending = join.resetPending ?? [];
  const consumed = pending.flatMap((flowId) => join.arrived[flowId]?.slice(0, 1) ?? []);
  take(join, consumed);
  delete join.resetPending;
  const key = joinKey(join.scopeId, join.gatewayId);
  const [keep, ...drop] = consumed;
  for (const id of drop) run.dropToken(id);
  const survivor = keep === undefined ? undefined : run.token(keep);
  // Nothing of the round arrived (its branches went elsewhere): the gateway just waits for start.
  if (survivor !== undefined) {
    survivor.phase = 'active';
    survivor.arrivedVia = null;
    survivor.complexReset = true;
    run.history('elementActivated', gateway.id, survivor.id, { reset: true, joined: consumed });
    run.schedule({ kind: 'split', tokenId: survivor.id });
  }
  waitForStart(run, join, gateway, key);
}

/**
 * The split of a complex gateway's reset: the flows whose condition is true with
 * `waitingForStart` = false get a token; flows without a condition and the default get none, so a
 * gateway whose conditions do not ask for the reset produces nothing and the token is consumed.
 * A condition error is an incident whose retry splits in the reset phase again.
 */
export function splitAfterReset(run: Run, token: TokenState): void {
  const gateway = run.element(token.elementId);
  const conditional = flowsOf(run, gateway.outgoing).filter((flow) => flow.condition !== null);
  const chosen = chooseFlows(run, token, conditional, true, { waitingForStart: false });
  if (chosen === null) return;
  delete token.complexReset;
  const taken = chosen.map((flow) => flow.id);
  run.history('gatewayDecision', gateway.id, token.id, { reset: true, taken });
  run.history('elementCompleted', gateway.id, token.id);
  if (taken.length > 0) takeFlows(run, token, taken);
  else endToken(run, token);
}

// After a reset: the tokens of the next round that arrived meanwhile may activate the gateway.
function waitForStart(run: Run, join: JoinState, gateway: ComplexGatewayModel, key: string): void {
  if (Object.keys(join.arrived).length === 0) {
    delete run.state.joins[key];
    return;
  }
  const next = Object.values(join.arrived).flat()[0];
  const token = next === undefined ? undefined : run.token(next);
  if (token !== undefined) checkJoin(run, join, gateway, token);
}

// Removes these tokens from the join's arrivals.
function take(join: JoinState, tokenIds: readonly string[]): void {
  for (const [flowId, ids] of Object.entries(join.arrived)) {
    const rest = ids.filter((id) => !tokenIds.includes(id));
    if (rest.length > 0) join.arrived[flowId] = rest;
    else delete join.arrived[flowId];
  }
}
