import type { ElementModel, MultiInstanceModel } from '../model/index.js';
import { openWaits, prepareBoundaryWaits } from './boundary.js';
import { ownerOf } from './bpmn-errors.js';
import { evaluateExpression, expressionScope } from './expression.js';
import { setOwn } from './json.js';
import type { Run } from './run.js';
import { terminateToken } from './terminate.js';
import type { JsonValue, MultiInstanceState, TokenState, Variables } from './types.js';
import { setVariables, tokenVariables, visibleVariables } from './variables.js';

type Activity = Extract<ElementModel, { multiInstance: MultiInstanceModel | null }>;

/**
 * Enters the body of a multi-instance activity: evaluates the collection (or cardinality), opens the
 * boundary waits, and starts every instance (parallel) or the first (sequential). The body scope
 * holds `nrOfInstances`, `nrOfActiveInstances` and `nrOfCompletedInstances`; each instance's scope
 * holds `loopCounter` (from 0) and the input element.
 */
export function enterMultiInstance(
  run: Run,
  body: TokenState,
  element: Activity,
  loop: MultiInstanceModel,
): void {
  const items = loopItems(run, body, loop);
  if (items === null) return;
  const count = typeof items === 'number' ? items : items.length;
  if (!withinLimits(run, body, loop, count)) return;
  const boundaries = prepareBoundaryWaits(run, body, element);
  if (boundaries === null) return;
  body.multiInstance = {
    items: typeof items === 'number' ? null : items,
    nrOfInstances: count,
    started: 0,
    nrOfCompletedInstances: 0,
    outputs: loop.outputCollection === null ? null : Array.from({ length: count }, () => null),
  };
  run.history('elementActivated', element.id, body.id, { multiInstance: 'body', nrOfInstances: count });
  const scope = run.localScopeOf(body);
  Object.assign(scope.variables, counters(body.multiInstance, 0));
  body.phase = 'waiting';
  openWaits(run, boundaries);
  if (count === 0) {
    finishBody(run, body, loop);
    return;
  }
  const first = loop.isSequential ? 1 : count;
  run.allowMultiInstanceSteps(first);
  for (let index = 0; index < first; index++) startInstance(run, body, loop);
}

/**
 * Bytes of variables a parallel body may copy into its instances' tasks at once: each task keeps a
 * snapshot of what its instance sees, so a collection variable is copied once per instance and the
 * write grows with the square of its length. 32 MiB keeps the engine call to about a hundred
 * megabytes of memory and a couple of seconds, and the instance's stored state (which holds every
 * open task's snapshot) small enough to rewrite on each later event.
 */
export const MULTI_INSTANCE_COPY_BUDGET_BYTES = 32 * 1024 * 1024;

// A body that would start more instances than the limit allows, or copy more variables into them
// than the budget, stops with an incident before anything of it is created.
function withinLimits(run: Run, body: TokenState, loop: MultiInstanceModel, count: number): boolean {
  const limit = run.ctx.maxMultiInstance;
  const what =
    loop.inputCollection !== null
      ? `its input collection has ${count} items`
      : `its loop cardinality is ${count}`;
  let problem: string | null = null;
  if (count > limit) {
    problem = `multi-instance '${body.elementId}' stopped: ${what}, more than the limit of ${limit} instances (WORKFLOW_MAX_MULTI_INSTANCE)`;
  } else if (!loop.isSequential && count > 1) {
    const seen = Buffer.byteLength(JSON.stringify(tokenVariables(run.state, body)));
    const copied = seen * count;
    if (copied > MULTI_INSTANCE_COPY_BUDGET_BYTES) {
      problem =
        `multi-instance '${body.elementId}' stopped: ${count} parallel instances would each copy the ` +
        `${seen} bytes of variables they see (${copied} bytes), more than the ` +
        `${MULTI_INSTANCE_COPY_BUDGET_BYTES} bytes one engine call may copy`;
    }
  }
  if (problem === null) return true;
  run.raiseIncident(body, 'multiInstanceLimit', problem, { action: 'activate' });
  return false;
}

/**
 * An instance completed (its variables and outputs applied, its scope still there): collects its
 * output element, then checks the completion condition and starts the next sequential instance or
 * completes the body. Returns false after raising an incident.
 */
export function instanceCompleted(run: Run, instance: TokenState): boolean {
  const body = ownerOf(run, instance.scopeId);
  const mi = body?.multiInstance;
  if (body === undefined || mi === undefined || mi === null) return true;
  const element = run.element(body.elementId);
  const loop = 'multiInstance' in element ? element.multiInstance : null;
  if (loop === null) return true;
  if (loop.outputElement !== null && mi.outputs !== null) {
    const result = evaluateExpression(
      loop.outputElement,
      tokenVariables(run.state, instance),
      expressionScope(run, instance),
    );
    if (!result.ok) {
      run.raiseIncident(instance, 'expression', `output element of '${element.id}': ${result.message}`, {
        action: 'complete',
        variables: null,
      });
      return false;
    }
    mi.outputs[instance.loopCounter ?? 0] = result.value;
  }
  if (instance.localScopeId !== null) delete run.state.scopes[instance.localScopeId];
  run.dropToken(instance.id);
  mi.nrOfCompletedInstances += 1;
  continueMultiInstance(run, body);
  return true;
}

/** Completes the body when the loop is done (all instances, or the completion condition), else goes on. */
export function continueMultiInstance(run: Run, body: TokenState): void {
  const mi = body.multiInstance;
  const element = run.element(body.elementId);
  const loop = 'multiInstance' in element ? element.multiInstance : null;
  if (mi === null || loop === null || body.localScopeId === null) return;
  body.phase = 'waiting';
  const active = run.countTokensIn(body.localScopeId);
  const scope = run.scope(body.localScopeId);
  Object.assign(scope.variables, counters(mi, active));
  let done = mi.nrOfCompletedInstances >= mi.nrOfInstances;
  if (!done && loop.completionCondition !== null) {
    const result = evaluateExpression(
      loop.completionCondition,
      visibleVariables(run.state, scope.id),
      expressionScope(run, body),
    );
    if (!result.ok || (result.value !== null && typeof result.value !== 'boolean')) {
      const why = result.ok ? `gave ${JSON.stringify(result.value)}, not a boolean` : result.message;
      run.raiseIncident(body, 'expression', `completion condition of '${element.id}': ${why}`, {
        action: 'continueMultiInstance',
      });
      return;
    }
    done = result.value === true;
  }
  if (done) finishBody(run, body, loop);
  else if (loop.isSequential && active === 0 && mi.started < mi.nrOfInstances) startInstance(run, body, loop);
}

function startInstance(run: Run, body: TokenState, loop: MultiInstanceModel): void {
  const mi = body.multiInstance;
  if (mi === null || body.localScopeId === null) return;
  const index = mi.started;
  mi.started += 1;
  const instance = run.newToken(body.elementId, body.localScopeId, null, body.id);
  instance.loopCounter = index;
  const variables: Variables = { loopCounter: index };
  if (loop.inputElement !== null) setOwn(variables, loop.inputElement, mi.items?.[index] ?? null);
  const scope = run.newScope(body.elementId, body.localScopeId, instance.id, variables);
  instance.localScopeId = scope.id;
  Object.assign(run.scope(body.localScopeId).variables, counters(mi, run.countTokensIn(body.localScopeId)));
  run.schedule({ kind: 'enter', tokenId: instance.id });
}

// Instances still running are terminated, then the body completes like any activity.
function finishBody(run: Run, body: TokenState, loop: MultiInstanceModel): void {
  const mi = body.multiInstance;
  if (body.localScopeId !== null) {
    for (const instance of run.tokensIn(body.localScopeId)) terminateToken(run, instance, 'interrupted');
  }
  if (loop.outputCollection !== null && mi?.outputs) {
    setVariables(run, body.scopeId, { [loop.outputCollection]: mi.outputs }, body.id);
  }
  body.phase = 'active';
  run.schedule({ kind: 'complete', tokenId: body.id, variables: null });
}

function counters(mi: MultiInstanceState, active: number): Variables {
  return {
    nrOfInstances: mi.nrOfInstances,
    nrOfActiveInstances: active,
    nrOfCompletedInstances: mi.nrOfCompletedInstances,
  };
}

function loopItems(run: Run, body: TokenState, loop: MultiInstanceModel): JsonValue[] | number | null {
  const variables = tokenVariables(run.state, body);
  const expression = loop.inputCollection ?? loop.loopCardinality ?? '0';
  const result = evaluateExpression(expression, variables, expressionScope(run, body));
  const what = loop.inputCollection !== null ? 'input collection' : 'loop cardinality';
  let problem: string | null = result.ok ? null : result.message;
  if (result.ok) {
    const value = result.value;
    if (loop.inputCollection !== null && Array.isArray(value)) return value;
    if (loop.inputCollection === null && typeof value === 'number' && Number.isInteger(value) && value >= 0) {
      return value;
    }
    problem = `gave ${JSON.stringify(value)}, not ${loop.inputCollection !== null ? 'a list' : 'a whole number'}`;
  }
  run.raiseIncident(body, 'expression', `${what} of '${body.elementId}': ${problem}`, { action: 'activate' });
  return null;
}
