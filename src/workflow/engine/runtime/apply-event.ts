import type { ProcessModel } from '../model/index.js';
import { reopenActivityWait } from './activities.js';
import { throwBpmnError } from './bpmn-errors.js';
import { throwEscalation } from './escalations.js';
import { propagateToCaller } from './call-errors.js';
import { continueAfterJob } from './continuation-resume.js';
import { failContinuation, reopenContinuation } from './continuations.js';
import {
  continueExecutionListeners,
  failExecutionListener,
  resumeExecutionListeners,
} from './execution-listener-resume.js';
import { cloneJson, nonJsonPath } from './json.js';
import { modifyInstance } from './modify.js';
import { continueMultiInstance } from './multi-instance.js';
import type { EngineContext, EngineError, EngineEvent, EngineResult } from './protocol.js';
import { Run } from './run.js';
import { drain, drainPausing, isLive } from './run-loop.js';
import { endInstance } from './scope-end.js';
import { continueStandardLoop, standardLoopOf } from './standard-loop.js';
import { terminateToken } from './terminate.js';
import type { Incident, InstanceState, Variables, Wait } from './types.js';
import { setLocalVariables } from './variables.js';
import { resumeDeleteListeners } from './task-listener-runs.js';
import {
  assignTask,
  completeWithListeners,
  failTaskListener,
  resumeTaskListeners,
  runTaskListeners,
} from './task-listeners.js';
import { triggerWait } from './wait-triggers.js';

/**
 * Applies one event to an instance and runs it until every token waits again. The input state is
 * not changed: the result holds a new state and the effects to persist. An event that does not fit
 * the state (an unknown or closed wait, an ended instance) is refused with a typed error.
 */
export function applyEvent(
  model: ProcessModel,
  state: InstanceState,
  event: EngineEvent,
  ctx: EngineContext,
): EngineResult {
  const begun = beginEvent(model, state, event, ctx);
  if (!(begun instanceof Run)) return begun;
  drain(begun);
  return { ok: true, state: begun.state, effects: begun.effects };
}

/**
 * {@link applyEvent} that calls `pause` between slices of its work (see `drainPausing`), for a
 * driver that must stay responsive while an event creates thousands of tokens. Same result.
 */
export async function applyEventPausing(
  model: ProcessModel,
  state: InstanceState,
  event: EngineEvent,
  ctx: EngineContext,
  pause: () => Promise<void>,
): Promise<EngineResult> {
  const begun = beginEvent(model, state, event, ctx);
  if (!(begun instanceof Run)) return begun;
  await drainPausing(begun, pause);
  return { ok: true, state: begun.state, effects: begun.effects };
}

// A private copy of the state with the event applied and its work on the agenda, or the refusal.
function beginEvent(
  model: ProcessModel,
  state: InstanceState,
  event: EngineEvent,
  ctx: EngineContext,
): Run | EngineResult {
  if (!isLive(state.status) && !answersDeleteListener(state, event))
    return refuse('instanceEnded', `the instance has ended (${state.status})`);
  const variables = 'variables' in event ? (event.variables ?? null) : null;
  const bad = variables === null ? null : nonJsonPath(variables, 'variables');
  if (bad !== null || (variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))) {
    return refuse('invalidVariables', `${bad ?? 'variables'} is not a JSON value`);
  }
  const run = new Run(model, cloneJson(state), ctx);
  const error = dispatch(run, event, variables === null ? null : cloneJson(variables));
  if (error !== null) return { ok: false, error };
  return run;
}

function dispatch(run: Run, event: EngineEvent, variables: Variables | null): EngineError | null {
  switch (event.type) {
    case 'complete': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      if (wait.kind === 'script' && wait.taskListener !== undefined) {
        resumeTaskListeners(run, wait, variables, undefined);
        return null;
      }
      if (wait.kind === 'continuation') {
        if (variables !== null) {
          return { code: 'notApplicable', message: `continuation job '${wait.waitId}' takes no variables` };
        }
        continueAfterJob(run, wait);
        return null;
      }
      if (wait.kind === 'script' && wait.executionListener !== undefined) {
        resumeExecutionListeners(run, wait, variables);
        return null;
      }
      if (wait.kind === 'script' && wait.deleteListener !== undefined) {
        resumeDeleteListeners(run, wait, variables);
        return null;
      }
      if (
        wait.kind === 'userTask' &&
        wait.role.kind === 'activity' &&
        completeWithListeners(run, wait, variables)
      )
        return null;
      triggerWait(run, wait, variables);
      return null;
    }
    case 'taskListenerDone': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      if (wait.kind === 'script' && wait.deleteListener !== undefined) {
        resumeDeleteListeners(run, wait, variables);
        return null;
      }
      if (wait.kind !== 'script' || wait.taskListener === undefined) {
        return { code: 'notApplicable', message: `wait '${wait.waitId}' is not a task listener's` };
      }
      resumeTaskListeners(run, wait, variables, event.assignee);
      return null;
    }
    case 'assignTask': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      if (wait.kind !== 'userTask' || wait.role.kind !== 'activity') {
        return { code: 'notApplicable', message: `wait '${wait.waitId}' is not a user task` };
      }
      if (event.claim === true && wait.assignee !== null && wait.assignee !== event.assignee) {
        return { code: 'notApplicable', message: `The task is assigned to ${wait.assignee}` };
      }
      assignTask(run, wait, event.assignee);
      return null;
    }
    case 'escalation': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      const token = run.token(wait.tokenId);
      if (wait.kind !== 'callActivity' || wait.role.kind !== 'activity' || token === undefined) {
        return { code: 'notApplicable', message: `wait '${wait.waitId}' is not a call activity's` };
      }
      throwEscalation(run, { callActivity: token }, event.escalationCode);
      return null;
    }
    case 'bpmnError': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      if (wait.role.kind !== 'activity' || !('boundaryEventIds' in run.element(wait.elementId))) {
        return { code: 'notApplicable', message: `wait '${wait.waitId}' is not the work of an activity` };
      }
      bpmnError(run, wait, event.errorCode, event.message ?? null, variables);
      return null;
    }
    case 'fail': {
      const wait = run.state.waits[event.waitId];
      if (wait === undefined) return waitNotFound(event.waitId);
      if (wait.role.kind !== 'activity') {
        return { code: 'notApplicable', message: `wait '${wait.waitId}' is not the work of an element` };
      }
      if (wait.kind === 'script' && wait.taskListener !== undefined)
        failTaskListener(run, wait, event.message);
      else if (wait.kind === 'continuation') failContinuation(run, wait, event.message);
      else if (wait.kind === 'script' && wait.executionListener !== undefined)
        failExecutionListener(run, wait, event.message);
      else if (wait.kind === 'script' && wait.deleteListener !== undefined)
        resumeDeleteListeners(run, wait, null, event.message);
      else fail(run, wait, event.message);
      return null;
    }
    case 'retryIncident': {
      const incident = run.state.incidents[event.incidentId];
      if (incident === undefined) {
        return { code: 'incidentNotFound', message: `no open incident '${event.incidentId}'` };
      }
      retry(run, incident);
      return null;
    }
    case 'cancel':
      for (const token of run.tokensIn(run.state.rootScopeId)) terminateToken(run, token, 'cancelled');
      endInstance(run, 'cancelled');
      return null;
    case 'setVariables':
      setLocalVariables(run, run.state.rootScopeId, variables ?? {}, null);
      return null;
    case 'modify':
      return modifyInstance(run, {
        instructions: event.instructions,
        variables,
        skipIoMappings: event.skipIoMappings === true,
        actor: event.actor ?? null,
      });
    default: {
      // Events come from JSON the driver parsed: an unknown type is refused, not ignored.
      const type = (event as { type?: unknown }).type;
      return { code: 'notApplicable', message: `unknown event type ${JSON.stringify(type)}` };
    }
  }
}

function bpmnError(
  run: Run,
  wait: Wait,
  errorCode: string,
  message: string | null,
  variables: Variables | null,
): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  run.closeWait(wait.waitId, 'errorThrown');
  run.history('errorThrown', wait.elementId, token.id, { errorCode, message });
  if (throwBpmnError(run, { token }, { code: errorCode, message }, variables)) return;
  if (propagateToCaller(run, errorCode)) return;
  const why = message === null ? '' : `: ${message}`;
  run.raiseIncident(
    token,
    'unhandledError',
    `error '${errorCode}' from '${wait.elementId}' is not caught${why}`,
    {
      action: 'openWait',
    },
    wait.waitId,
  );
}

function fail(run: Run, wait: Wait, message: string): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  run.closeWait(wait.waitId, 'failed');
  run.raiseIncident(token, 'jobFailed', message, { action: 'openWait' }, wait.waitId);
}

function retry(run: Run, incident: Incident): void {
  run.resolveIncident(incident, 'retried');
  // A conditional event's owner keeps waiting: only its condition is evaluated again.
  if (incident.retry.action === 'evaluateCondition') {
    run.schedule({ kind: 'conditions', waitIds: [incident.retry.waitId] });
    return;
  }
  const token = run.token(incident.tokenId);
  if (token === undefined) return;
  token.phase = 'active';
  switch (incident.retry.action) {
    case 'activate':
      run.schedule({ kind: 'enter', tokenId: token.id });
      return;
    case 'openWait':
      reopenActivityWait(run, token);
      return;
    case 'complete':
      run.schedule({ kind: 'complete', tokenId: token.id, variables: incident.retry.variables });
      return;
    case 'split':
      run.schedule({ kind: 'split', tokenId: token.id });
      return;
    case 'taskListeners':
      runTaskListeners(run, token, incident.retry.pending);
      return;
    case 'continuation':
      reopenContinuation(run, token, incident.retry.then);
      return;
    case 'executionListeners':
      continueExecutionListeners(run, token, incident.retry.pending);
      return;
    case 'continueMultiInstance':
      if (standardLoopOf(run.element(token.elementId)) !== null) continueStandardLoop(run, token);
      else continueMultiInstance(run, token);
      return;
  }
}

// The answer to a withdrawn task's JavaScript `delete` listener, which may come after its instance ended.
function answersDeleteListener(state: InstanceState, event: EngineEvent): boolean {
  if (event.type !== 'complete' && event.type !== 'taskListenerDone' && event.type !== 'fail') return false;
  const wait = state.waits[event.waitId];
  return wait?.kind === 'script' && wait.deleteListener !== undefined;
}

function waitNotFound(waitId: string): EngineError {
  return { code: 'waitNotFound', message: `no open wait '${waitId}'` };
}

function refuse(code: EngineError['code'], message: string): EngineResult {
  return { ok: false, error: { code, message } };
}
