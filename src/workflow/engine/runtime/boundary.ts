import type { ElementModel } from '../model/index.js';
import { buildCatchWait, isThrownTo } from './catch-waits.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { TokenState, Variables, Wait } from './types.js';

/**
 * Builds the waits of the timer, message, signal and conditional boundary events of an activity
 * (error and escalation boundary events wait for nothing: they are found when one is thrown), or
 * of its conditional ones only when `conditionalOnly`. The caller opens them once the activity
 * itself waits. Returns null after raising an incident when one cannot be built.
 */
export function prepareBoundaryWaits(
  run: Run,
  token: TokenState,
  element: ElementModel,
  conditionalOnly = false,
): Wait[] | null {
  // The boundary events of a multi-instance activity belong to its body, not to each instance.
  if (!('boundaryEventIds' in element) || token.loopCounter !== null) return [];
  const waits: Wait[] = [];
  for (const boundaryId of element.boundaryEventIds) {
    const boundary = run.element(boundaryId);
    // Error, escalation, compensation and cancel boundary events wait for nothing: what throws finds them.
    if (boundary.type !== 'boundaryEvent' || isThrownTo(boundary.eventDefinition.kind)) continue;
    if (conditionalOnly && boundary.eventDefinition.kind !== 'conditional') continue;
    const role = {
      kind: 'boundary' as const,
      boundaryEventId: boundaryId,
      interrupting: boundary.cancelActivity,
    };
    const built = buildCatchWait(run, token, boundaryId, boundary.eventDefinition, role);
    if (!built.ok) {
      run.raiseIncident(token, 'expression', built.message, { action: 'activate' });
      return null;
    }
    waits.push(built.wait);
  }
  return waits;
}

/** Opens prepared boundary waits. */
export function openWaits(run: Run, waits: readonly Wait[]): void {
  for (const wait of waits) run.openWait(wait);
}

/**
 * A boundary event fired. Interrupting: the activity is terminated and a token leaves the boundary
 * event. Non-interrupting: the activity goes on and a new token leaves the boundary event; the wait
 * stays open while the activity runs, so a message or signal fires it every time it arrives, a
 * condition on a later change and a timer cycle at each occurrence (the driver schedules the next),
 * as in Camunda 7; a one-shot timer closes.
 */
export function triggerBoundary(run: Run, wait: Wait, variables: Variables | null): void {
  if (wait.role.kind !== 'boundary') return;
  const host = run.token(wait.tokenId);
  if (host === undefined) return;
  const repeats = !wait.role.interrupting && (wait.kind !== 'timer' || wait.timer.kind === 'cycle');
  if (!repeats) run.closeWait(wait.waitId, 'completed');
  if (wait.role.interrupting) terminateToken(run, host, 'interrupted');
  startBoundaryToken(run, wait.role.boundaryEventId, host.scopeId, host.id, variables, {});
}

/** Puts a token on a boundary event and lets it complete with the given variables. */
export function startBoundaryToken(
  run: Run,
  boundaryId: string,
  scopeId: string,
  parentTokenId: string,
  variables: Variables | null,
  data: Record<string, string>,
): void {
  const token = run.newToken(boundaryId, scopeId, null, parentTokenId);
  run.history('elementActivated', boundaryId, token.id, data);
  run.schedule({ kind: 'complete', tokenId: token.id, variables });
}
