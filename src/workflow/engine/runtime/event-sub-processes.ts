import type { ScopeModel } from '../model/index.js';
import { startBoundaryToken } from './boundary.js';
import { buildCatchWait } from './catch-waits.js';
import type { WaitCloseReason } from './protocol.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { TokenState, Variables, Wait } from './types.js';

/**
 * Opens the start-event waits of the timer, message and signal event sub-processes of a scope that
 * has just started (error event sub-processes wait for nothing: a thrown error finds them). The waits
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
    // Error and compensation event sub-processes are found by what throws, not waited for.
    if (start?.type !== 'startEvent') continue;
    if (start.eventDefinition.kind === 'error' || start.eventDefinition.kind === 'compensate') continue;
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
  const start = run.element(wait.elementId);
  const espId = start.parentId;
  const oneShot = wait.kind === 'timer' && wait.timer.kind !== 'cycle';
  if (interrupting) {
    closeEventSubProcessWaits(run, scopeId, 'interrupted');
    for (const token of run.tokensIn(scopeId)) {
      if (run.token(token.id) !== undefined) terminateToken(run, token, 'interrupted');
    }
  } else if (oneShot) {
    run.closeWait(wait.waitId, 'completed');
  }
  const esp = run.newToken(espId, scopeId, null);
  esp.phase = 'waiting';
  run.history('elementActivated', espId, esp.id, { interrupting });
  const local = run.localScopeOf(esp);
  // An event sub-process is a scope too: its own event sub-processes listen while it runs.
  const espModel = run.element(espId);
  if (espModel.type === 'subProcess' && !openEventSubProcesses(run, local.id, esp.id, espModel, esp)) return;
  startBoundaryToken(run, start.id, local.id, esp.id, variables, {});
}

/** Closes the event sub-process waits of a scope (an interrupting one fired there). */
export function closeEventSubProcessWaits(run: Run, scopeId: string, reason: WaitCloseReason): void {
  for (const wait of Object.values(run.state.waits)) {
    if (wait.role.kind === 'eventSubProcess' && wait.role.scopeId === scopeId)
      run.closeWait(wait.waitId, reason);
  }
}
