import type { ElementModel } from '../model/index.js';
import { cloneJson } from './json.js';
import type { Run } from './run.js';
import type { CompensationSubscription, TokenState } from './types.js';

/**
 * Records a compensation subscription for an activity whose token is completing, before its local
 * scope goes: when the activity has a compensation handler (an associated handler, or for a
 * sub-process a compensation event sub-process), or when subscriptions were recorded inside its
 * local scope (a sub-process, a multi-instance body or instance), which compensating it compensates.
 */
export function recordCompensation(run: Run, token: TokenState, element: ElementModel): void {
  if (!('boundaryEventIds' in element)) return;
  const local = token.localScopeId;
  const notCompensable =
    token.compensationOf !== undefined ||
    element.isForCompensation === true ||
    (element.type === 'subProcess' && element.triggeredByEvent);
  if (notCompensable) {
    // What completed inside an event sub-process or a handler cannot be reached once it ended.
    if (local !== null) dropCompensationIn(run, local);
    return;
  }
  const isBody = token.multiInstance !== null;
  const state = run.state.compensation;
  const hasInner =
    local !== null && state !== undefined && state.subscriptions.some((s) => s.scopeId === local);
  if (!hasInner && (isBody || handlerOf(run, element) === null)) return;
  // A multi-instance instance whose output failed completes again on retry: record it once.
  if (local !== null && state?.subscriptions.some((s) => s.localScopeId === local) === true) return;
  const compensation = (run.state.compensation ??= { next: 1, subscriptions: [] });
  compensation.subscriptions.push({
    activityId: element.id,
    scopeId: token.scopeId,
    localScopeId: local,
    order: compensation.next,
    variables: local === null ? {} : cloneJson(run.scope(local).variables),
    loopCounter: token.loopCounter,
  });
  compensation.next += 1;
}

/** How an activity is compensated: its associated handler, its compensation event sub-process, or neither. */
export type CompensationHandler =
  | { kind: 'activity'; handlerId: string }
  | { kind: 'eventSubProcess'; eventSubProcessId: string; startEventId: string };

/** The compensation handler of an activity, or null when it has none (its inner activities are compensated). */
export function handlerOf(run: Run, element: ElementModel): CompensationHandler | null {
  if (!('boundaryEventIds' in element)) return null;
  const handlerId = element.compensationHandlerId ?? null;
  if (handlerId !== null) return { kind: 'activity', handlerId };
  if (element.type !== 'subProcess') return null;
  for (const espId of element.eventSubProcessIds) {
    const esp = run.model.elements[espId];
    const startId = esp?.type === 'subProcess' ? esp.startEventIds[0] : undefined;
    const start = startId === undefined ? undefined : run.model.elements[startId];
    if (start?.type === 'startEvent' && start.eventDefinition.kind === 'compensate') {
      return { kind: 'eventSubProcess', eventSubProcessId: espId, startEventId: start.id };
    }
  }
  return null;
}

/** Removes and returns the subscriptions that match, highest order (last completed) first. */
export function takeSubscriptions(
  run: Run,
  matches: (subscription: CompensationSubscription) => boolean,
): CompensationSubscription[] {
  const state = run.state.compensation;
  if (state === undefined) return [];
  const taken = state.subscriptions.filter(matches);
  if (taken.length === 0) return [];
  state.subscriptions = state.subscriptions.filter((s) => !matches(s));
  return taken.sort((a, b) => b.order - a.order);
}

/**
 * Drops the subscriptions recorded in a scope and, recursively, inside the scopes they name: the
 * scope ended without completing (interrupted, cancelled), or its compensation is over.
 */
export function dropCompensationIn(run: Run, scopeId: string): void {
  if (run.state.compensation === undefined) return;
  for (const dropped of takeSubscriptions(run, (s) => s.scopeId === scopeId)) {
    if (dropped.localScopeId !== null) dropCompensationIn(run, dropped.localScopeId);
  }
}

/** Ends a token's compensation run: drops the scopes it recreated and what was recorded in them. */
export function endCompensationRun(run: Run, token: TokenState): void {
  const compensation = token.compensating;
  if (compensation === undefined) return;
  delete token.compensating;
  for (const scopeId of compensation.recreatedScopeIds.reverse()) {
    dropCompensationIn(run, scopeId);
    delete run.state.scopes[scopeId];
  }
}
