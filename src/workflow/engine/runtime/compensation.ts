import type { ElementModel } from '../model/index.js';
import { startBoundaryToken } from './boundary.js';
import { ownerOf } from './bpmn-errors.js';
import type { CompensationHandler } from './compensation-state.js';
import {
  dropCompensationIn,
  endCompensationRun,
  handlerOf,
  takeSubscriptions,
} from './compensation-state.js';
import { closeEventSubProcessWaits } from './event-sub-processes.js';
import { cloneJson } from './json.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { CompensationRun, CompensationSubscription, ScopeState, TokenState } from './types.js';

/**
 * A compensation throw (intermediate or end event): compensates the completed activities of its
 * scopes (see {@link compensatedScopesOf}), or only `activityRef`, last completed first, one handler
 * at a time; the token waits and completes after the last handler (Camunda 7 waits too, whatever
 * `waitForCompletion` says).
 */
export function throwCompensation(run: Run, token: TokenState, activityRef: string | null): void {
  const scopeIds = compensatedScopesOf(run, token.scopeId);
  const taken = takeSubscriptions(
    run,
    (s) => scopeIds.has(s.scopeId) && (activityRef === null || s.activityId === activityRef),
  );
  run.history('compensationThrown', token.elementId, token.id, {
    activityRef,
    activities: taken.map((s) => s.activityId),
  });
  startCompensation(run, token, taken, 'complete');
}

/**
 * A cancel end event in a transaction: everything else in the transaction ends, its completed
 * activities are compensated (last completed first), then the transaction's cancel boundary event
 * interrupts it and the token leaves by that boundary event.
 */
export function cancelTransaction(run: Run, token: TokenState): void {
  const scopeId = token.scopeId;
  closeEventSubProcessWaits(run, scopeId, 'interrupted');
  for (const other of run.tokensIn(scopeId)) {
    if (other.id !== token.id && run.token(other.id) !== undefined) terminateToken(run, other, 'interrupted');
  }
  const taken = takeSubscriptions(run, (s) => s.scopeId === scopeId);
  run.history('compensationThrown', token.elementId, token.id, {
    activityRef: null,
    activities: taken.map((s) => s.activityId),
  });
  startCompensation(run, token, taken, 'cancel');
}

/** A compensation handler (or compensation event sub-process) completed: the next one runs. */
export function handlerCompleted(run: Run, handler: TokenState): void {
  const throwId = handler.compensationOf;
  if (handler.localScopeId !== null) delete run.state.scopes[handler.localScopeId];
  run.dropToken(handler.id);
  const thrower = throwId === undefined ? undefined : run.token(throwId);
  if (thrower !== undefined) nextHandler(run, thrower);
}

function startCompensation(
  run: Run,
  token: TokenState,
  taken: CompensationSubscription[],
  then: CompensationRun['then'],
): void {
  token.phase = 'waiting';
  token.compensating = { pending: taken, taken: [...taken], recreatedScopeIds: [], then };
  nextHandler(run, token);
}

// Starts the next handler; a sub-process or multi-instance activity without one is replaced by
// what completed inside it. After the last, the throw goes on.
function nextHandler(run: Run, token: TokenState): void {
  const compensation = token.compensating;
  if (compensation === undefined) return;
  for (let next = compensation.pending.shift(); next !== undefined; next = compensation.pending.shift()) {
    const element = run.model.elements[next.activityId];
    if (element === undefined) continue;
    const isBody = next.loopCounter === null && 'multiInstance' in element && element.multiInstance !== null;
    const handler = isBody ? null : handlerOf(run, element);
    if (handler !== null) {
      startHandler(run, token, compensation, next, handler);
      return;
    }
    if (next.localScopeId === null) continue;
    const localScopeId = next.localScopeId;
    const inner = takeSubscriptions(run, (s) => s.scopeId === localScopeId);
    compensation.taken.push(...inner);
    compensation.pending.unshift(...inner);
  }
  const { then } = compensation;
  endCompensationRun(run, token);
  if (then === 'complete') run.schedule({ kind: 'complete', tokenId: token.id, variables: null });
  else leaveByCancelBoundary(run, token);
}

function startHandler(
  run: Run,
  token: TokenState,
  compensation: CompensationRun,
  subscription: CompensationSubscription,
  handler: CompensationHandler,
): void {
  if (handler.kind === 'activity') {
    // What completed inside an activity with its own handler is the handler's business.
    if (subscription.localScopeId !== null) dropCompensationIn(run, subscription.localScopeId);
    // An instance of a multi-instance activity is compensated with its own variables (loopCounter, item).
    const where = subscription.loopCounter !== null ? subscription.localScopeId : subscription.scopeId;
    const scope = ensureScope(run, compensation, where ?? subscription.scopeId, token);
    const handlerToken = run.newToken(handler.handlerId, scope.id, null, token.id);
    handlerToken.compensationOf = token.id;
    run.schedule({ kind: 'enter', tokenId: handlerToken.id });
    return;
  }
  // The event sub-process runs in the sub-process's scope as it completed; a compensation throw in
  // it compensates what completed in that scope.
  const scope = ensureScope(run, compensation, subscription.localScopeId ?? subscription.scopeId, token);
  const esp = run.newToken(handler.eventSubProcessId, scope.id, null, token.id);
  esp.compensationOf = token.id;
  esp.phase = 'waiting';
  run.history('elementActivated', handler.eventSubProcessId, esp.id, { compensation: true });
  const local = run.localScopeOf(esp);
  startBoundaryToken(run, handler.startEventId, local.id, esp.id, null, {});
}

// A live scope, or one that ended, recreated (with its id, so what completed in it still names
// it) from the local variables it had when its activity completed.
function ensureScope(
  run: Run,
  compensation: CompensationRun,
  scopeId: string,
  token: TokenState,
): ScopeState {
  const live = run.state.scopes[scopeId];
  if (live !== undefined) return live;
  const owner = compensation.taken.find((s) => s.localScopeId === scopeId);
  const parent =
    owner === undefined ? run.scope(token.scopeId) : ensureScope(run, compensation, owner.scopeId, token);
  const scope: ScopeState = {
    id: scopeId,
    elementId: owner?.activityId ?? parent.elementId,
    parentId: parent.id,
    ownerTokenId: null,
    variables: cloneJson(owner?.variables ?? {}),
  };
  run.state.scopes[scopeId] = scope;
  compensation.recreatedScopeIds.push(scopeId);
  return scope;
}

/**
 * The scopes a throw in `scopeId` compensates: its own and, from an event sub-process, the scope
 * around it, up to the first scope that is not an event sub-process (as Camunda 7: an event
 * sub-process does not consume compensation). A compensation event sub-process thus compensates
 * the sub-process it is the handler of.
 */
function compensatedScopesOf(run: Run, scopeId: string): Set<string> {
  const scopes = new Set<string>([scopeId]);
  for (let scope = run.state.scopes[scopeId]; scope !== undefined && scope.parentId !== null;) {
    const element: ElementModel | undefined = run.model.elements[scope.elementId];
    if (element?.type !== 'subProcess' || !element.triggeredByEvent) break;
    scopes.add(scope.parentId);
    scope = run.state.scopes[scope.parentId];
  }
  return scopes;
}

// The transaction (its multi-instance body, for an instance) is interrupted and its cancel boundary fires.
function leaveByCancelBoundary(run: Run, token: TokenState): void {
  let transaction = ownerOf(run, token.scopeId);
  if (transaction !== undefined && transaction.loopCounter !== null)
    transaction = ownerOf(run, transaction.scopeId);
  const element = transaction === undefined ? undefined : run.element(transaction.elementId);
  const boundaryId =
    element !== undefined && 'boundaryEventIds' in element
      ? element.boundaryEventIds.find((id) => {
          const boundary = run.element(id);
          return boundary.type === 'boundaryEvent' && boundary.eventDefinition.kind === 'cancel';
        })
      : undefined;
  if (transaction === undefined || boundaryId === undefined) {
    run.raiseIncident(
      token,
      'noPath',
      `cancel end event '${token.elementId}' has no cancel boundary event to leave by`,
      {
        action: 'activate',
      },
    );
    return;
  }
  run.history('elementCompleted', token.elementId, token.id);
  run.dropToken(token.id);
  terminateToken(run, transaction, 'interrupted');
  startBoundaryToken(run, boundaryId, transaction.scopeId, transaction.id, null, {});
}
