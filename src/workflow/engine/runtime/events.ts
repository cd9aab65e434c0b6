import type { ElementModel, EndEventModel } from '../model/index.js';
import { enterActivity } from './activities.js';
import { openWaits } from './boundary.js';
import { throwBpmnError } from './bpmn-errors.js';
import { throwEscalation } from './escalations.js';
import { cancelTransaction, throwCompensation } from './compensation.js';
import { openEventSubProcesses } from './event-sub-processes.js';
import { propagateToCaller } from './call-errors.js';
import { buildCatchWait, evaluateCorrelationKey } from './catch-waits.js';
import { runExecutionListeners } from './execution-listeners.js';
import type { Run } from './run.js';
import { endInstance, tokenEnded } from './scope-end.js';
import { catchOwnSignal } from './signals.js';
import { terminateToken } from './terminate.js';
import type { TokenState } from './types.js';
import { messagePayload } from './variables.js';

type EventElement = Extract<
  ElementModel,
  { type: 'startEvent' | 'endEvent' | 'intermediateCatchEvent' | 'intermediateThrowEvent' }
>;

/**
 * Enters an event. Start, none and link events pass through (a link throw jumps to its catch when it
 * leaves, see `leaveElement`); catch events open a wait; message and signal throws hand an effect to
 * the driver (or a job, when a worker implements the message), a signal reaching this instance's own
 * catches at once; an escalation is thrown to the enclosing catches and the thrower goes on unless an
 * interrupting one ended it; terminate and error end events end their scope or throw.
 */
export function enterEvent(run: Run, token: TokenState, element: EventElement): void {
  const definition = element.eventDefinition;
  // A link catch is reached only by its throw's jump: it passes through.
  if (element.type === 'intermediateCatchEvent' && definition.kind !== 'link') {
    const built = buildCatchWait(run, token, element.id, definition, { kind: 'activity' });
    if (!built.ok) {
      run.raiseIncident(token, 'expression', built.message, { action: 'activate' });
      return;
    }
    token.phase = 'waiting';
    openWaits(run, [built.wait]);
    return;
  }
  if (element.type === 'endEvent' && definition.kind === 'terminate') {
    terminateScope(run, token);
    return;
  }
  if (definition.kind === 'compensate') {
    throwCompensation(run, token, definition.activityRef);
    return;
  }
  if (element.type === 'endEvent' && definition.kind === 'cancel') {
    cancelTransaction(run, token);
    return;
  }
  if (element.type === 'endEvent' && definition.kind === 'error') {
    throwFromEnd(run, token, element);
    return;
  }
  // A start event's definition is its trigger, already met: it passes through. The process's
  // event sub-processes start listening as its first token enters.
  if (element.type === 'startEvent') {
    const atRoot = element.parentId === run.model.processKey && token.scopeId === run.state.rootScopeId;
    const rootId = run.state.rootScopeId;
    if (atRoot && !openEventSubProcesses(run, rootId, rootId, run.model, token)) return;
    run.schedule({ kind: 'complete', tokenId: token.id, variables: null });
    return;
  }
  if (definition.kind === 'message' && definition.job !== null) {
    enterActivity(run, token, element);
    return;
  }
  if (definition.kind === 'message' && definition.messageName !== null) {
    const key = evaluateCorrelationKey(run, token, definition.correlationKey);
    if (!key.ok) {
      const message = `correlation key of '${element.id}': ${key.message}`;
      run.raiseIncident(token, 'expression', message, { action: 'activate' });
      return;
    }
    run.effects.push({
      type: 'messageThrown',
      elementId: element.id,
      messageName: definition.messageName,
      correlationKey: key.value,
      variables: messagePayload(run, token),
    });
  }
  if (definition.kind === 'signal') {
    const variables = messagePayload(run, token);
    run.effects.push({
      type: 'signalThrown',
      elementId: element.id,
      signalName: definition.signalName,
      variables,
    });
    catchOwnSignal(run, definition.signalName, variables);
  }
  if (definition.kind === 'escalation') {
    const source = { scopeId: token.scopeId, elementId: element.id, tokenId: token.id };
    throwEscalation(run, source, definition.escalationCode ?? '');
  }
  // A catch in this instance (an interrupting one) may have ended the thrower.
  if (run.token(token.id) === undefined) return;
  run.schedule({ kind: 'complete', tokenId: token.id, variables: null });
}

/**
 * A terminate end event ends every other token of its scope. At the root the instance ends as
 * terminated; inside a sub-process only the sub-process ends, and it completes normally (BPMN).
 */
function terminateScope(run: Run, token: TokenState): void {
  const on = { kind: 'element' as const, id: token.elementId };
  if (runExecutionListeners(run, token, on, 'end', { kind: 'terminate' }))
    terminateAfterListeners(run, token);
}

/** A terminate end event ends its scope, once its `end` listeners are done. */
export function terminateAfterListeners(run: Run, token: TokenState): void {
  run.history('elementCompleted', token.elementId, token.id);
  run.dropToken(token.id);
  for (const other of run.tokensIn(token.scopeId)) {
    if (run.token(other.id) !== undefined) terminateToken(run, other, 'interrupted');
  }
  if (token.scopeId === run.state.rootScopeId) endInstance(run, 'terminated');
  else tokenEnded(run, token.scopeId);
}

/** An error end event throws to the enclosing activities; uncaught, its token stops with an incident. */
function throwFromEnd(run: Run, token: TokenState, element: EndEventModel): void {
  const definition = element.eventDefinition.kind === 'error' ? element.eventDefinition : null;
  const code = definition?.errorCode ?? '';
  run.history('errorThrown', element.id, token.id, { errorCode: code });
  const thrown = { code, message: definition?.errorMessage ?? null };
  if (throwBpmnError(run, { scopeId: token.scopeId }, thrown, null)) return;
  if (propagateToCaller(run, code)) return;
  run.raiseIncident(token, 'unhandledError', `error '${code}' thrown by '${element.id}' is not caught`, {
    action: 'activate',
  });
}
