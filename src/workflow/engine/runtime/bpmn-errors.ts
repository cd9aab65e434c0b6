import type { ElementModel } from '../model/index.js';
import { startBoundaryToken } from './boundary.js';
import { closeEventSubProcessWaits } from './event-sub-processes.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { TokenState, Variables } from './types.js';

/**
 * Throws a BPMN error outwards, from an activity token (a worker's error) or from a scope (an error
 * end event there). At each level the activity's error boundary events are tried first, then the
 * error event sub-processes of the scope it is in; then the enclosing sub-process (or
 * multi-instance body) is the next activity. An exact error code wins over a catch-all. The catcher
 * interrupts: a boundary event terminates its activity, an event sub-process everything else in its
 * scope. Returns false when nothing catches the error (the caller raises the incident).
 */
export function throwBpmnError(
  run: Run,
  from: { token: TokenState } | { scopeId: string },
  thrown: ThrownError,
  variables: Variables | null,
): boolean {
  const errorCode = thrown.code;
  let token = 'token' in from ? from.token : undefined;
  let scopeId = 'token' in from ? from.token.scopeId : from.scopeId;
  // The activity whose scope the search just left: when it is an event sub-process, it does not
  // catch its own error again (that would restart it without end); the error goes outwards, as in
  // Camunda 7.
  let leftActivity: string | null = null;
  for (;;) {
    if (token !== undefined && token.loopCounter === null) {
      const boundary = catcherAmong(run, boundaryIdsOf(run.element(token.elementId)), errorCode);
      if (boundary !== undefined) {
        run.history('errorThrown', token.elementId, token.id, { errorCode, caughtBy: boundary.id });
        terminateToken(run, token, 'interrupted');
        const caught = withErrorVariables(boundary, thrown, variables);
        startBoundaryToken(run, boundary.id, token.scopeId, token.id, caught, { errorCode });
        return true;
      }
    }
    if (catchInScope(run, scopeId, thrown, variables, leftActivity)) return true;
    token = ownerOf(run, scopeId);
    if (token === undefined) return false;
    leftActivity = token.elementId;
    scopeId = token.scopeId;
  }
}

/** The token that owns a scope (a sub-process, a multi-instance body or instance), or undefined at the root. */
export function ownerOf(run: Run, scopeId: string): TokenState | undefined {
  const ownerId = run.state.scopes[scopeId]?.ownerTokenId ?? null;
  return ownerId === null ? undefined : run.token(ownerId);
}

// An error event sub-process of the scope (other than `skipped`, the one the error came out of):
// everything else in the scope ends, the sub-process starts.
function catchInScope(
  run: Run,
  scopeId: string,
  thrown: ThrownError,
  variables: Variables | null,
  skipped: string | null,
): boolean {
  const errorCode = thrown.code;
  const scope = run.state.scopes[scopeId];
  if (scope === undefined) return false;
  const owner = ownerOf(run, scopeId);
  // A multi-instance body's scope holds instances, not the children of the sub-process.
  if (owner?.multiInstance) return false;
  const container = scope.parentId === null ? run.model : run.element(scope.elementId);
  if (!('eventSubProcessIds' in container)) return false;
  const starts = container.eventSubProcessIds.flatMap((id) => {
    const esp = run.element(id);
    return esp.type === 'subProcess' && id !== skipped ? esp.startEventIds : [];
  });
  const start = catcherAmong(run, starts, errorCode);
  if (start === undefined) return false;
  const espId = start.parentId;
  run.history('errorThrown', espId, null, { errorCode, caughtBy: start.id });
  closeEventSubProcessWaits(run, scopeId, 'interrupted');
  for (const token of run.tokensIn(scopeId)) {
    if (run.token(token.id) !== undefined) terminateToken(run, token, 'interrupted');
  }
  const esp = run.newToken(espId, scopeId, null);
  esp.phase = 'waiting';
  run.history('elementActivated', espId, esp.id, { errorCode });
  const local = run.localScopeOf(esp);
  startBoundaryToken(run, start.id, local.id, esp.id, withErrorVariables(start, thrown, variables), {
    errorCode,
  });
  return true;
}

/** A BPMN error as thrown: its code, and the message a worker or the error's definition gave. */
export interface ThrownError {
  code: string;
  message: string | null;
}

// Camunda 7's errorCodeVariable / errorMessageVariable on the catching event receive the error.
function withErrorVariables(catcher: ElementModel, thrown: ThrownError, variables: Variables | null) {
  const definition = 'eventDefinition' in catcher ? catcher.eventDefinition : undefined;
  if (definition?.kind !== 'error') return variables;
  const { codeVariable, messageVariable } = definition;
  if (!codeVariable && !messageVariable) return variables;
  return {
    ...variables,
    ...(codeVariable ? { [codeVariable]: thrown.code } : {}),
    ...(messageVariable ? { [messageVariable]: thrown.message } : {}),
  };
}

function boundaryIdsOf(element: ElementModel): string[] {
  return 'boundaryEventIds' in element ? element.boundaryEventIds : [];
}

// Among error events (boundary or start), the one for this code, else a catch-all.
function catcherAmong(run: Run, ids: readonly string[], errorCode: string): ElementModel | undefined {
  const codes = ids.flatMap((id) => {
    const element = run.element(id);
    const definition = 'eventDefinition' in element ? element.eventDefinition : undefined;
    if (definition?.kind !== 'error') return [];
    return [{ element, code: definition.errorCode }];
  });
  return (codes.find((c) => c.code === errorCode) ?? codes.find((c) => c.code === null))?.element;
}
