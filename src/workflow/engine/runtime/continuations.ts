import { defaultJobRetryCycle, type ElementModel } from '../model/index.js';
import type { Run } from './run.js';
import type { ContinuationWait, TokenState } from './types.js';

/*
 * Camunda 7's asynchronous continuations. At an `asyncBefore` or `asyncAfter` point the token
 * stops with a `continuation` wait: the call that brought it there commits, and the driver writes a
 * job that answers the wait later in a transaction of its own (the continuation executor). What
 * fails after the point then fails in the job, which is retried as `camunda:failedJobRetryTimeCycle`
 * says before the failure stands as an incident, rather than in the call of whoever moved the token.
 */

/** What a continuation job does when it runs. */
export type ContinuationStep = ContinuationWait['then'];

// An inner token of a multi-instance activity follows the loop characteristics' flags; a body, or a
// token of an element without multi-instance, the element's own. Iterations of a standard loop have
// none: the element's flags apply to the loop as a whole. A boundary event's token exists only once
// its event happened and completes at once, so both of its flags cut after it completed (its
// event's variables set), before its outgoing flow.
function flags(run: Run, token: TokenState): { before: boolean; after: boolean } {
  const element = run.element(token.elementId);
  const timer = timerRetried(element);
  const async = element.async;
  if (element.type === 'boundaryEvent')
    return { before: false, after: timer || async?.before === true || async?.after === true };
  if (async === undefined) return { before: false, after: timer };
  if (token.loopCounter === null) return { before: async.before, after: async.after || timer };
  const multiInstance = 'multiInstance' in element && element.multiInstance !== null;
  return multiInstance
    ? { before: async.instanceBefore, after: async.instanceAfter }
    : { before: false, after: false };
}

// A timer event with `camunda:failedJobRetryTimeCycle`: Camunda 7 retries its timer job when what
// follows the firing fails. weft commits the firing and runs what follows the event in a
// continuation job with that cycle.
function timerRetried(element: ElementModel): boolean {
  if (element.jobRetry === undefined || !('eventDefinition' in element)) return false;
  return element.eventDefinition?.kind === 'timer' && element.type !== 'intermediateThrowEvent';
}

function stop(run: Run, token: TokenState, then: ContinuationStep): void {
  const element = run.element(token.elementId);
  token.phase = 'waiting';
  run.openWait({
    kind: 'continuation',
    waitId: run.ctx.newId(),
    elementId: element.id,
    tokenId: token.id,
    role: { kind: 'activity' },
    openedAt: run.now(),
    then,
    retry: element.jobRetry ?? defaultJobRetryCycle,
  });
}

/**
 * At the entry of an element: true when the token stops here for an `asyncBefore` job (the job's
 * own entry goes on). Called before anything of the element runs.
 */
export function stopsBefore(run: Run, token: TokenState): boolean {
  if (run.pastAsyncBefore.delete(token.id) || !flags(run, token).before) return false;
  stop(run, token, { kind: 'enter' });
  return true;
}

/**
 * After an element completed (its end listeners ran): true when the token stops for an
 * `asyncAfter` job, which then does `then`.
 */
export function stopsAfter(run: Run, token: TokenState, then: ContinuationStep): boolean {
  if (!flags(run, token).after) return false;
  stop(run, token, then);
  return true;
}

/** Opens a token's continuation job again: an operator retried the incident of one that failed. */
export function reopenContinuation(run: Run, token: TokenState, then: ContinuationStep): void {
  stop(run, token, then);
}

/**
 * A continuation job failed for a reason outside the model and has no retries left (what fails in
 * the model stands as the model's own incident): an incident whose retry opens the job again.
 */
export function failContinuation(run: Run, wait: ContinuationWait, message: string): void {
  const token = run.token(wait.tokenId);
  if (token === undefined) return;
  run.closeWait(wait.waitId, 'failed');
  run.raiseIncident(token, 'jobFailed', message, { action: 'continuation', then: wait.then }, wait.waitId);
}
