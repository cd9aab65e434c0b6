import type { ElementModel } from '../model/index.js';
import { startBoundaryToken } from './boundary.js';
import { ownerOf } from './bpmn-errors.js';
import { interruptScope, startEventSubProcess } from './event-sub-processes.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { TokenState } from './types.js';

/** Where an escalation is thrown: from a throw event in a scope, or at a call activity (from its child). */
export type EscalationSource =
  { scopeId: string; elementId: string; tokenId: string } | { callActivity: TokenState };

// The catch an escalation found: a boundary event of an activity, or an event sub-process's start.
type Catcher =
  | { kind: 'boundary'; element: ElementModel & { cancelActivity: boolean }; host: TokenState }
  | { kind: 'eventSubProcess'; element: ElementModel & { isInterrupting: boolean }; scopeId: string };

/**
 * Throws an escalation outwards (BPMN 2.0.2 13.5.6, Camunda 7's behaviour). At each level the
 * escalation boundary events of the activity are tried (a call activity's first, then each
 * enclosing sub-process or multi-instance body), and the escalation event sub-processes of the
 * scope; an exact code wins over a catch without one, the nearest level over outer ones.
 *
 * Unlike an error, the catcher may be non-interrupting: its path starts beside the thrower, which
 * goes on. An interrupting boundary event terminates its activity (and everything inside, the
 * thrower too), an interrupting event sub-process everything else in its scope. Nothing catching is
 * not an incident: in a called instance the escalation goes to the caller's call activity (an
 * `escalationPropagated` effect), else it is only recorded. An `escalationThrown` history entry
 * says which element caught it, if any. Returns the id of the catching event, or null.
 */
export function throwEscalation(run: Run, from: EscalationSource, escalationCode: string): string | null {
  const thrower =
    'callActivity' in from
      ? { elementId: from.callActivity.elementId, tokenId: from.callActivity.id }
      : { elementId: from.elementId, tokenId: from.tokenId };
  const catcher = findCatcher(run, from, escalationCode);
  if (catcher === null) {
    const toCaller = run.state.calledByParent === true;
    run.history('escalationThrown', thrower.elementId, thrower.tokenId, {
      escalationCode,
      caught: false,
      caughtBy: null,
      ...(toCaller ? { propagatedToCaller: true } : {}),
    });
    if (toCaller) run.effects.push({ type: 'escalationPropagated', escalationCode });
    return null;
  }
  const caughtBy = catcher.element.id;
  run.history('escalationThrown', thrower.elementId, thrower.tokenId, {
    escalationCode,
    caught: true,
    caughtBy,
  });
  if (catcher.kind === 'boundary') {
    const { host } = catcher;
    if (catcher.element.cancelActivity) terminateToken(run, host, 'interrupted');
    startBoundaryToken(run, caughtBy, host.scopeId, host.id, null, { escalationCode });
    return caughtBy;
  }
  const interrupting = catcher.element.isInterrupting;
  if (interrupting) interruptScope(run, catcher.scopeId);
  startEventSubProcess(run, catcher.scopeId, caughtBy, null, { interrupting, escalationCode });
  return caughtBy;
}

function findCatcher(run: Run, from: EscalationSource, escalationCode: string): Catcher | null {
  let token = 'callActivity' in from ? from.callActivity : undefined;
  let scopeId = 'callActivity' in from ? from.callActivity.scopeId : from.scopeId;
  // The activity whose scope the search just left: an event sub-process does not catch its own
  // escalation again (Camunda 7 skips the re-throwing one too); it goes outwards.
  let leftActivity: string | null = null;
  for (;;) {
    // The boundary events of a multi-instance activity belong to its body, not to each instance.
    if (token !== undefined && token.loopCounter === null) {
      const host = run.element(token.elementId);
      const ids = 'boundaryEventIds' in host ? host.boundaryEventIds : [];
      const boundary = catcherAmong(run, ids, escalationCode);
      if (boundary?.type === 'boundaryEvent') return { kind: 'boundary', element: boundary, host: token };
    }
    const start = catcherAmong(run, eventSubProcessStarts(run, scopeId, leftActivity), escalationCode);
    if (start?.type === 'startEvent') return { kind: 'eventSubProcess', element: start, scopeId };
    token = ownerOf(run, scopeId);
    if (token === undefined) return null;
    leftActivity = token.elementId;
    scopeId = token.scopeId;
  }
}

// The start events of the event sub-processes of a live scope but `skipped` (none for a
// multi-instance body's scope, which holds instances, not the sub-process's children).
function eventSubProcessStarts(run: Run, scopeId: string, skipped: string | null): string[] {
  const scope = run.state.scopes[scopeId];
  if (scope === undefined || ownerOf(run, scopeId)?.multiInstance) return [];
  const container = scope.parentId === null ? run.model : run.element(scope.elementId);
  if (!('eventSubProcessIds' in container)) return [];
  return container.eventSubProcessIds.flatMap((id) => {
    const esp = run.element(id);
    return esp.type === 'subProcess' && id !== skipped ? esp.startEventIds : [];
  });
}

// Among escalation events (boundary or start), the one for this code, else one without a code.
function catcherAmong(run: Run, ids: readonly string[], escalationCode: string): ElementModel | undefined {
  const codes = ids.flatMap((id) => {
    const element = run.element(id);
    if (!('eventDefinition' in element) || element.eventDefinition?.kind !== 'escalation') return [];
    return [{ element, code: element.eventDefinition.escalationCode }];
  });
  return (codes.find((c) => c.code === escalationCode) ?? codes.find((c) => c.code === null))?.element;
}
