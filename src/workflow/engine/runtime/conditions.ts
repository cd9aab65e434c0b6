import { listeningScope } from './condition-watch.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { ConditionalWait, TokenState } from './types.js';
import { visibleVariables } from './variables.js';
import { triggerWait } from './wait-triggers.js';

/**
 * Evaluates the conditions of conditional waits (when opened, after a variable change they see, on
 * retry) and fires each that is `true`, in the order given. A wait closed by an earlier one (an
 * interrupting event) is skipped. A condition that fails or gives something other than a boolean or
 * null raises an incident on the event; its wait stays open but is not evaluated again until the
 * incident is retried.
 */
export function evaluateConditions(run: Run, waitIds: readonly string[]): void {
  for (const waitId of waitIds) {
    const wait = run.state.waits[waitId];
    if (wait?.kind !== 'conditional' || hasOpenIncident(run, waitId)) continue;
    const scopeId = listeningScope(run.state, wait);
    if (scopeId === null) continue;
    const result = evaluateExpression(
      wait.condition,
      visibleVariables(run.state, scopeId),
      expressionScope(run),
    );
    if (!result.ok || (result.value !== null && typeof result.value !== 'boolean')) {
      const why = result.ok ? `gave ${JSON.stringify(result.value)}, not a boolean` : result.message;
      const message = `condition of '${wait.elementId}': ${why}`;
      const retry = { action: 'evaluateCondition' as const, waitId };
      run.raiseIncident(standIn(wait, scopeId), 'expression', message, retry, waitId);
      continue;
    }
    if (result.value === true && withinFiringLimit(run, wait, scopeId)) triggerWait(run, wait, null);
  }
}

/**
 * An activity about to leave first evaluates the changes queued for its own conditional boundary
 * events (what it completed with, its outputs): Camunda 7 dispatches pending variable events before
 * an activity is left, so a task completed with variables that meet an interrupting boundary
 * condition is interrupted instead, and a non-interrupting one fires as the task completes. Returns
 * false when the activity was interrupted.
 */
export function evaluateOwnConditions(run: Run, token: TokenState): boolean {
  const queued = run
    .waitsOf(token.id)
    .filter((wait) => wait.kind === 'conditional' && wait.role.kind === 'boundary')
    .flatMap((wait) => Array.from({ length: run.pendingEvaluations(wait.waitId) }, () => wait.waitId));
  if (queued.length === 0) return true;
  run.settleEvaluations(queued);
  evaluateConditions(run, queued);
  return run.token(token.id) !== undefined;
}

// Firings of each conditional wait in one engine call.
const firings = new WeakMap<Run, Map<string, number>>();

// A non-interrupting event whose own path writes what it listens to would fire for ever within the
// call (its new tokens do not inherit a growing step count): past maxStepsPerCall firings in one
// call it stops with a step-limit incident instead; retrying evaluates it again in a fresh call.
function withinFiringLimit(run: Run, wait: ConditionalWait, scopeId: string): boolean {
  const counts = firings.get(run) ?? new Map<string, number>();
  firings.set(run, counts);
  const count = (counts.get(wait.waitId) ?? 0) + 1;
  counts.set(wait.waitId, count);
  if (count <= run.ctx.maxStepsPerCall) return true;
  const message = `'${wait.elementId}' fired ${run.ctx.maxStepsPerCall} times in one call: does its path change what its condition reads?`;
  const retry = { action: 'evaluateCondition' as const, waitId: wait.waitId };
  run.raiseIncident(standIn(wait, scopeId), 'stepLimit', message, retry, wait.waitId);
  return false;
}

function hasOpenIncident(run: Run, waitId: string): boolean {
  return Object.values(run.state.incidents).some((incident) => incident.waitId === waitId);
}

// The incident names the conditional event and the wait's owner (the waiting token, or the scope of
// an event sub-process), without stopping the owner: it still waits for its own work.
function standIn(wait: ConditionalWait, scopeId: string): TokenState {
  return {
    id: wait.tokenId,
    elementId: wait.elementId,
    scopeId,
    localScopeId: null,
    arrivedVia: null,
    phase: 'waiting',
    multiInstance: null,
    loopCounter: null,
  };
}
