import { enterActivity } from './activities.js';
import { stopsBefore } from './continuations.js';
import { enterEvent } from './events.js';
import { runExecutionListeners } from './execution-listeners.js';
import { enterGateway } from './gateways.js';
import { enterInstantiatingReceive, instantiatesProcess } from './instantiating-receive.js';
import { applyInputs } from './mappings.js';
import { enterMultiInstance } from './multi-instance.js';
import type { Run } from './run.js';
import { enterStandardLoop, standardLoopOf } from './standard-loop.js';
import { enterSubProcess } from './sub-process.js';
import type { TokenState } from './types.js';

// The element's `start` execution listeners; false when one waits for its script or failed (its
// behaviour then runs once they are done, see execution-listener-resume.ts).
function startListeners(run: Run, token: TokenState): boolean {
  const on = { kind: 'element' as const, id: token.elementId };
  return runExecutionListeners(run, token, on, 'start', { kind: 'behaviour' });
}

/**
 * Runs the behaviour of the element a token has just reached. Counts the step first: a token whose
 * lineage entered more than `maxStepsPerCall` elements in this call is in a loop without a wait
 * state, and stops with an incident (retrying it gives it a fresh budget).
 */
export function enterElement(run: Run, token: TokenState): void {
  if (!countStep(run, token)) return;
  const element = run.element(token.elementId);
  token.phase = 'active';
  if (stopsBefore(run, token)) return;
  if ('multiInstance' in element && element.multiInstance !== null && token.loopCounter === null) {
    enterMultiInstance(run, token, element, element.multiInstance);
    return;
  }
  if (standardLoopOf(element) !== null && token.loopCounter === null) {
    enterStandardLoop(run, token, element);
    return;
  }
  switch (element.type) {
    case 'exclusiveGateway':
    case 'parallelGateway':
    case 'inclusiveGateway':
    case 'complexGateway':
    case 'eventBasedGateway':
    case 'boundaryEvent':
      // Boundary tokens are created already activated, by the boundary or error handling.
      if (startListeners(run, token)) enterBehaviour(run, token);
      return;
    default:
      break;
  }
  run.history(
    'elementActivated',
    element.id,
    token.id,
    token.loopCounter === null ? {} : { loopCounter: token.loopCounter },
  );
  if (!run.skipInputsOf.delete(token.id) && !applyInputs(run, token, element)) return;
  if (startListeners(run, token)) enterBehaviour(run, token);
}

/**
 * Runs the behaviour of the element a token has entered, once its input mappings and `start`
 * listeners are done.
 */
export function enterBehaviour(run: Run, token: TokenState): void {
  const element = run.element(token.elementId);
  switch (element.type) {
    case 'exclusiveGateway':
    case 'parallelGateway':
    case 'inclusiveGateway':
    case 'complexGateway':
    case 'eventBasedGateway':
      enterGateway(run, token, element);
      return;
    case 'boundaryEvent':
      run.schedule({ kind: 'complete', tokenId: token.id, variables: null });
      return;
    case 'startEvent':
    case 'endEvent':
    case 'intermediateCatchEvent':
    case 'intermediateThrowEvent':
      enterEvent(run, token, element);
      return;
    case 'subProcess':
      enterSubProcess(run, token, element);
      return;
    default:
      if (instantiatesProcess(element)) enterInstantiatingReceive(run, token);
      else enterActivity(run, token, element);
  }
}

function countStep(run: Run, token: TokenState): boolean {
  const steps = (run.steps.get(token.id) ?? 0) + 1;
  run.steps.set(token.id, steps);
  run.totalSteps += 1;
  const limit = run.ctx.maxStepsPerCall;
  // The total bound catches a loop that splits into more tokens on every turn.
  if (steps <= limit && run.totalSteps <= limit * 10 + run.multiInstanceSteps) return true;
  run.raiseIncident(
    token,
    'stepLimit',
    `'${token.elementId}' was reached after ${limit} steps in one call: a loop without a wait state?`,
    { action: 'activate' },
  );
  return false;
}
