import type { ElementModel, StandardLoopModel } from '../model/index.js';
import { openWaits, prepareBoundaryWaits } from './boundary.js';
import { ownerOf } from './bpmn-errors.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { TokenState } from './types.js';
import { visibleVariables } from './variables.js';

/** The standard loop of an element, or null when it has none. */
export function standardLoopOf(element: ElementModel): StandardLoopModel | null {
  return 'standardLoop' in element ? (element.standardLoop ?? null) : null;
}

/**
 * Enters a standard loop (BPMN 13.2.2.1): a sequential repetition of the activity, kept like a
 * sequential multi-instance body. The body token owns a scope holding `loopCounter`, the number of
 * iterations completed; each iteration is an inner token whose own scope holds `loopCounter`, its
 * index from 0 (so history shows every iteration, as for multi-instance). The boundary events
 * belong to the whole loop.
 */
export function enterStandardLoop(run: Run, body: TokenState, element: ElementModel): void {
  const boundaries = prepareBoundaryWaits(run, body, element);
  if (boundaries === null) return;
  body.multiInstance = {
    items: null,
    nrOfInstances: 0,
    started: 0,
    nrOfCompletedInstances: 0,
    outputs: null,
  };
  run.history('elementActivated', element.id, body.id, { standardLoop: 'body' });
  run.localScopeOf(body).variables.loopCounter = 0;
  body.phase = 'waiting';
  openWaits(run, boundaries);
  continueStandardLoop(run, body);
}

/** An iteration completed (variables and outputs applied): its token and scope go, the loop goes on. */
export function iterationCompleted(run: Run, iteration: TokenState): void {
  const body = ownerOf(run, iteration.scopeId);
  if (iteration.localScopeId !== null) delete run.state.scopes[iteration.localScopeId];
  run.dropToken(iteration.id);
  const loop = body?.multiInstance;
  if (body === undefined || loop === undefined || loop === null || body.localScopeId === null) return;
  loop.nrOfCompletedInstances += 1;
  run.scope(body.localScopeId).variables.loopCounter = loop.nrOfCompletedInstances;
  continueStandardLoop(run, body);
}

/**
 * Starts the next iteration or completes the body: never more than `loopMaximum` iterations; the
 * first always runs unless `testBefore`; otherwise the `loopCondition` (seeing `loopCounter`, the
 * iterations done) must be true to go on. A condition that fails or is not a boolean raises an
 * incident; retrying it checks again.
 */
export function continueStandardLoop(run: Run, body: TokenState): void {
  const element = run.element(body.elementId);
  const loop = standardLoopOf(element);
  const state = body.multiInstance;
  if (loop === null || state === null || body.localScopeId === null) return;
  body.phase = 'waiting';
  const done = state.nrOfCompletedInstances;
  let again: boolean;
  if (loop.loopMaximum !== null && done >= loop.loopMaximum) again = false;
  else if (loop.loopCondition === null || (done === 0 && !loop.testBefore)) again = true;
  else {
    const result = evaluateExpression(
      loop.loopCondition,
      visibleVariables(run.state, body.localScopeId),
      expressionScope(run, body),
    );
    if (!result.ok || (result.value !== null && typeof result.value !== 'boolean')) {
      const why = result.ok ? `gave ${JSON.stringify(result.value)}, not a boolean` : result.message;
      run.raiseIncident(body, 'expression', `loop condition of '${element.id}': ${why}`, {
        action: 'continueMultiInstance',
      });
      return;
    }
    again = result.value === true;
  }
  if (!again) {
    body.phase = 'active';
    run.schedule({ kind: 'complete', tokenId: body.id, variables: null });
    return;
  }
  const index = state.started;
  state.started += 1;
  state.nrOfInstances = state.started;
  // Each iteration counts as a step of the body's lineage, so a loop without a wait state and
  // without an end stops at the step limit like any other loop.
  run.steps.set(body.id, (run.steps.get(body.id) ?? 0) + 1);
  const iteration = run.newToken(body.elementId, body.localScopeId, null, body.id);
  iteration.loopCounter = index;
  const scope = run.newScope(body.elementId, body.localScopeId, iteration.id, { loopCounter: index });
  iteration.localScopeId = scope.id;
  run.schedule({ kind: 'enter', tokenId: iteration.id });
}
