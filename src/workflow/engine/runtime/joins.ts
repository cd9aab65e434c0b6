import type { ElementModel } from '../model/index.js';
import { holdsUpGateway } from './reachability.js';
import type { Run } from './run.js';
import type { JoinState, TokenState } from './types.js';

/** The key of a join in {@link InstanceState.joins}. */
export function joinKey(scopeId: string, gatewayId: string): string {
  return `${scopeId}/${gatewayId}`;
}

/**
 * Records a token's arrival at a converging gateway in the join of its scope (created on the first
 * arrival); the token waits there.
 */
export function recordArrival(run: Run, token: TokenState, gatewayId: string): JoinState {
  const key = joinKey(token.scopeId, gatewayId);
  const join: JoinState = run.state.joins[key] ?? { scopeId: token.scopeId, gatewayId, arrived: {} };
  run.state.joins[key] = join;
  const flowId = token.arrivedVia ?? '';
  join.arrived[flowId] = [...(join.arrived[flowId] ?? []), token.id];
  token.phase = 'joining';
  run.history('gatewayArrived', gatewayId, token.id, { flowId });
  return join;
}

/**
 * A token arrives at a converging gateway. A parallel join fires as soon as every incoming flow has
 * a token, consuming one per flow; an inclusive join is checked when nothing else can move
 * ({@link fireInclusiveJoins}). The join keeps the first token of the first incoming flow and
 * drops the others, so the outcome does not depend on the order in which branches arrived.
 */
export function arriveAtJoin(run: Run, token: TokenState, gateway: ElementModel): void {
  const join = recordArrival(run, token, gateway.id);
  if (gateway.type !== 'parallelGateway') return;
  if (!gateway.incoming.every((id) => (join.arrived[id]?.length ?? 0) > 0)) return;
  const consumed = gateway.incoming.map((id) => join.arrived[id]?.[0] ?? '');
  fire(run, join, gateway, consumed);
}

/**
 * Fires every inclusive join that no other token of its scope holds up (BPMN 2.0.2 §13.3.4): a
 * token holds it up when it can still reach an incoming flow without a token and cannot reach one
 * that has a token (a token that can reach both belongs to a later round, so two joins in a loop do
 * not wait for each other). Returns true when one fired (the caller then runs the agenda again).
 */
export function fireInclusiveJoins(run: Run): boolean {
  for (const join of Object.values(run.state.joins)) {
    const gateway = run.element(join.gatewayId);
    if (gateway.type !== 'inclusiveGateway') continue;
    const waiting = new Set(Object.values(join.arrived).flat());
    const empty = gateway.incoming.filter((flowId) => (join.arrived[flowId]?.length ?? 0) === 0);
    const blocked =
      empty.length > 0 &&
      run
        .tokensIn(join.scopeId)
        .some(
          (token) => !waiting.has(token.id) && holdsUpGateway(run.model, token.elementId, gateway, empty),
        );
    if (blocked) continue;
    const consumed = gateway.incoming.flatMap((id) => join.arrived[id] ?? []);
    fire(run, join, gateway, consumed);
    return true;
  }
  return false;
}

function fire(run: Run, join: JoinState, gateway: ElementModel, consumed: readonly string[]): void {
  const [keep, ...drop] = consumed;
  const survivor = keep === undefined ? undefined : run.token(keep);
  if (survivor === undefined) return;
  for (const [flowId, tokenIds] of Object.entries(join.arrived)) {
    const rest = tokenIds.filter((id) => !consumed.includes(id));
    if (rest.length > 0) join.arrived[flowId] = rest;
    else delete join.arrived[flowId];
  }
  if (Object.keys(join.arrived).length === 0) delete run.state.joins[joinKey(join.scopeId, join.gatewayId)];
  for (const id of drop) run.dropToken(id);
  survivor.phase = 'active';
  survivor.arrivedVia = null;
  run.history('elementActivated', gateway.id, survivor.id, { joined: [...consumed] });
  run.schedule({ kind: 'split', tokenId: survivor.id });
}
