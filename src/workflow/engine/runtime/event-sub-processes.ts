import type { ScopeModel } from '../model/index.js';
import { startBoundaryToken } from './boundary.js';
import { buildCatchWait, isThrownTo } from './catch-waits.js';
import type { WaitCloseReason } from './protocol.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { TokenState, Variables, Wait } from './types.js';

/**
 * Opens the start-event waits of the timer, message and signal event sub-processes of a scope that
 * has just started (error and escalation event sub-processes wait for nothing: a throw finds them). The waits
 * belong to `ownerId`, the scope's owner token (or the root scope's id), so they close with it.
 * Returns false after raising an incident on `blame` when a timer or correlation key cannot be
 * evaluated; nothing is opened then.
 */
export function openEventSubProcesses(
  run: Run,
  scopeId: string,
  ownerId: string,
  container: ScopeModel,
  blame: TokenState,
): boolean {
  // Expressions are evaluated against the scope's variables, as if by a token standing in it.
  const standIn: TokenState = { ...blame, id: ownerId, scopeId, localScopeId: null };
  const waits: Wait[] = [];
  for (const espId of container.eventSubProcessIds) {
    const esp = run.element(espId);
    const startId = esp.type === 'subProcess' ? esp.startEventIds[0] : undefined;
    const start = startId === undefined ? undefined : run.element(startId);
    // Error, escalation and compensation starts wait for nothing: what throws finds them.
    if (start?.type !== 'startEvent' || isThrownTo(start.eventDefinition.kind)) continue;
    const role = { kind: 'eventSubProcess' as const, scopeId, interrupting: start.isInterrupting };
    const built = buildCatchWait(run, standIn, start.id, start.eventDefinition, role);
    if (!built.ok) {
      run.raiseIncident(blame, 'expression', built.message, { action: 'activate' });
      return false;
    }
    waits.push(built.wait);
  }
  for (const wait of waits) run.openWait(wait);
  return true;
}

/**
 * The start event of an event sub-process fired. Interrupting: everything else in the scope ends
 * (its other event sub-process waits too) and the sub-process runs alone. Non-interrupting: it runs
 * beside the scope's tokens, and the wait stays open to fire again, except a one-shot timer.
 */
export function triggerEventSubProcess(run: Run, wait: Wait, variables: Variables | null): void {
  if (wait.role.kind !== 'eventSubProcess') return;
  const { scopeId, interrupting } = wait.role;
  if (run.state.scopes[scopeId] === undefined) return;
  const oneShot = wait.kind === 'timer' && wait.timer.kind !== 'cycle';
  if (interrupting) interruptScope(run, scopeId);
  else if (oneShot) run.closeWait(wait.waitId, 'completed');
  startEventSubProcess(run, scopeId, wait.elementId, variables, { interrupting });
}

/**
 * Starts an event sub-process of a scope from its start event `startId` (the caller has already
 * ended what an interrupting start ends): a token at the sub-process, whose own event sub-processes
 * start listening, and a token leaving the start event with `variables`.
 */
export function startEventSubProcess(
  run: Run,
  scopeId: string,
  startId: string,
  variables: Variables | null,
  data: Record<string, string | boolean>,
): void {
  const espId = run.element(startId).parentId;
  const esp = run.newToken(espId, scopeId, null);
  esp.phase = 'waiting';
  run.history('elementActivated', espId, esp.id, data);
  const local = run.localScopeOf(esp);
  // An event sub-process is a scope too: its own event sub-processes listen while it runs.
  const espModel = run.element(espId);
  if (espModel.type === 'subProcess' && !openEventSubProcesses(run, local.id, esp.id, espModel, esp)) return;
  startBoundaryToken(run, startId, local.id, esp.id, variables, {});
}

/** Ends everything in a scope, its event sub-process waits too: an interrupting event sub-process starts. */
export function interruptScope(run: Run, scopeId: string): void {
  closeEventSubProcessWaits(run, scopeId, 'interrupted');
  for (const token of run.tokensIn(scopeId)) {
    if (run.token(token.id) !== undefined) terminateToken(run, token, 'interrupted');
  }
}

/** Closes the event sub-process waits of a scope (an interrupting one fired there). */
export function closeEventSubProcessWaits(run: Run, scopeId: string, reason: WaitCloseReason): void {
  for (const wait of Object.values(run.state.waits)) {
    if (wait.role.kind === 'eventSubProcess' && wait.role.scopeId === scopeId)
      run.closeWait(wait.waitId, reason);
  }
}
