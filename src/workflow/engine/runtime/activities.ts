import type { ElementModel, JobDefinition, RawXmlElement } from '../model/index.js';
import { openWaits, prepareBoundaryWaits } from './boundary.js';
import { buildCatchWait, evaluateCorrelationKey } from './catch-waits.js';
import { resolveCalledElement, resolveDecisionReference } from './called-references.js';
import { evaluateExpression, expressionScope, type ExpressionScope } from './expression.js';
import { evaluateFeel } from './feel.js';
import { createWithListeners } from './task-listeners.js';
import type { Run } from './run.js';
import type { ExternalTaskWait, TokenState, Variables, Wait, WaitBase } from './types.js';
import { evaluateAssignment } from './user-task.js';
import { messagePayload, tokenVariables } from './variables.js';

/** Retries of a job whose model gives none. */
export const DEFAULT_RETRIES = 3;

/** What an activity does when entered: wait for the outside, be done at once, or fail. */
export type ActivityWork =
  | { kind: 'wait'; wait: Wait }
  | { kind: 'done'; variables: Variables | null }
  | { kind: 'failed'; message: string };

/**
 * Enters a task-like activity (everything but sub-processes): opens its wait and the waits of its
 * boundary events, or completes it at once (plain and manual tasks, FEEL scripts), opening only
 * the waits of its conditional boundary events on the way.
 */
export function enterActivity(run: Run, token: TokenState, element: ElementModel): void {
  const work = activityWork(run, token, element);
  if (work.kind === 'failed') {
    run.raiseIncident(token, 'expression', work.message, { action: 'activate' });
    return;
  }
  if (work.kind === 'done') {
    if (!openConditionalBoundaries(run, token, element)) return;
    run.schedule({ kind: 'complete', tokenId: token.id, variables: work.variables });
    return;
  }
  const boundaries = prepareBoundaryWaits(run, token, element);
  if (boundaries === null) return;
  token.phase = 'waiting';
  openActivityWait(run, token, element, work.wait);
  openWaits(run, boundaries);
}

// A user task with create or assignment listeners opens its wait once they have run.
function openActivityWait(run: Run, token: TokenState, element: ElementModel, wait: Wait): void {
  if (wait.kind === 'userTask' && createWithListeners(run, token, element, wait)) return;
  run.openWait(wait);
}

/**
 * An activity done at once still has its conditional boundary events looked at, as a waiting one
 * (Camunda 7): their waits open now, so their entry evaluation runs before the queued completion
 * (an interrupting one that holds ends the activity first) and the completion evaluates what the
 * activity completed with; completing closes them again. Timer, message and signal boundary events
 * cannot fire before such an activity completes, and an activity without boundary events opens
 * nothing. Returns false after raising an incident.
 */
function openConditionalBoundaries(run: Run, token: TokenState, element: ElementModel): boolean {
  if (!('boundaryEventIds' in element) || element.boundaryEventIds.length === 0) return true;
  const waits = prepareBoundaryWaits(run, token, element, true);
  if (waits === null) return false;
  openWaits(run, waits);
  return true;
}

/** Opens the activity's own wait again (retrying a failed job); its boundary waits stayed open. */
export function reopenActivityWait(run: Run, token: TokenState): void {
  const work = activityWork(run, token, run.element(token.elementId));
  if (work.kind === 'failed') run.raiseIncident(token, 'expression', work.message, { action: 'openWait' });
  else if (work.kind === 'done')
    run.schedule({ kind: 'complete', tokenId: token.id, variables: work.variables });
  else {
    token.phase = 'waiting';
    openActivityWait(run, token, run.element(token.elementId), work.wait);
  }
}

/** The work of an activity, by type. */
export function activityWork(run: Run, token: TokenState, element: ElementModel): ActivityWork {
  const base: WaitBase = {
    waitId: run.ctx.newId(),
    elementId: element.id,
    tokenId: token.id,
    role: { kind: 'activity' },
    openedAt: run.now(),
  };
  const variables = () => tokenVariables(run.state, token);
  switch (element.type) {
    case 'task':
    case 'manualTask':
      return { kind: 'done', variables: null };
    case 'serviceTask':
      if (element.job !== null) return externalTask(base, element.job, variables());
      return extensionWork(base, element, element.implementedBy, variables());
    case 'sendTask': {
      if (element.job !== null) return externalTask(base, element.job, variables());
      if (element.implementedBy !== null)
        return extensionWork(base, element, element.implementedBy, variables());
      if (element.messageName === null)
        return { kind: 'failed', message: `'${element.id}' sends no message` };
      // Models stored before send tasks had keys lack the field.
      const key = evaluateCorrelationKey(run, token, element.correlationKey ?? null);
      if (!key.ok) return { kind: 'failed', message: `correlation key of '${element.id}': ${key.message}` };
      return {
        kind: 'wait',
        wait: {
          ...base,
          kind: 'send',
          messageName: element.messageName,
          correlationKey: key.value,
          variables: messagePayload(run, token),
        },
      };
    }
    case 'receiveTask': {
      const trigger = {
        kind: 'receive' as const,
        messageName: element.messageName,
        correlationKey: element.correlationKey,
      };
      const built = buildCatchWait(run, token, element.id, trigger, base.role);
      return built.ok
        ? { kind: 'wait', wait: { ...built.wait, waitId: base.waitId } }
        : { kind: 'failed', message: built.message };
    }
    case 'userTask': {
      const vars = variables();
      const assignment = evaluateAssignment(element, vars, expressionScope(run, token));
      if (!assignment.ok) return { kind: 'failed', message: assignment.message };
      const wait = {
        ...base,
        kind: 'userTask' as const,
        name: element.name,
        formKey: element.formKey,
        ...assignment.value,
        variables: vars,
      };
      return { kind: 'wait', wait };
    }
    case 'scriptTask':
      if (element.job !== null) return externalTask(base, element.job, variables());
      if (element.implementedBy !== null)
        return extensionWork(base, element, element.implementedBy, variables());
      return scriptWork(base, element.script, element.resultVariable, variables());
    case 'businessRuleTask': {
      if (element.job !== null) return externalTask(base, element.job, variables());
      if (element.decision === null) return { kind: 'failed', message: `'${element.id}' has no decision` };
      const decision = resolveDecisionReference(run, token, element.id, element.decision);
      if (!decision.ok) return { kind: 'failed', message: decision.message };
      return {
        kind: 'wait',
        wait: { ...base, kind: 'decision', decision: decision.value, variables: variables() },
      };
    }
    case 'callActivity': {
      const called = resolveCalledElement(run, token, element.id, element.calledElement);
      if (!called.ok) return { kind: 'failed', message: called.message };
      const passed = element.calledElement.propagateAllParentVariables
        ? variables()
        : token.localScopeId === null
          ? {}
          : { ...run.scope(token.localScopeId).variables };
      const wait = {
        ...base,
        kind: 'callActivity' as const,
        calledElement: called.value,
        variables: passed,
      };
      if (element.calledElement.businessKey === undefined) return { kind: 'wait', wait };
      const key = calledBusinessKey(
        element.calledElement.businessKey,
        variables(),
        expressionScope(run, token),
      );
      if (!key.ok) return { kind: 'failed', message: `business key: ${key.message}` };
      return { kind: 'wait', wait: { ...wait, businessKey: key.value } };
    }
    case 'intermediateThrowEvent':
    case 'endEvent':
      if (element.eventDefinition.kind === 'message' && element.eventDefinition.job !== null) {
        return externalTask(base, element.eventDefinition.job, variables());
      }
      return { kind: 'failed', message: `'${element.id}' is not an activity` };
    default:
      return { kind: 'failed', message: `'${element.id}' (${element.type}) is not an activity` };
  }
}

/** Characters of a business key (the API's limit). */
const MAX_BUSINESS_KEY_LENGTH = 255;

// Camunda turns the value into text; null leaves the called instance without a business key.
function calledBusinessKey(
  expression: string,
  variables: Variables,
  scope: ExpressionScope,
): { ok: true; value: string | null } | { ok: false; message: string } {
  const result = evaluateExpression(expression, variables, scope);
  if (!result.ok) return result;
  const value = result.value;
  if (value === null) return { ok: true, value: null };
  if (typeof value === 'object')
    return { ok: false, message: 'the expression gives a list or a context, not a text' };
  const text = String(value);
  if (text.length > MAX_BUSINESS_KEY_LENGTH)
    return { ok: false, message: `the text is over ${MAX_BUSINESS_KEY_LENGTH} characters` };
  return { ok: true, value: text };
}

function externalTask(base: WaitBase, job: JobDefinition, variables: Variables): ActivityWork {
  const retries = jobRetries(job.retries, variables);
  if (typeof retries === 'string')
    return { kind: 'failed', message: `retries of '${base.elementId}': ${retries}` };
  const wait: ExternalTaskWait = {
    ...base,
    kind: 'externalTask',
    topic: job.topic,
    retries,
    headers: { ...job.headers },
    variables,
  };
  return { kind: 'wait', wait };
}

// Retries are written as a number, or (Zeebe) as an expression starting with `=`.
function jobRetries(raw: string | null, variables: Variables): number | string {
  if (raw === null) return DEFAULT_RETRIES;
  const trimmed = raw.trim();
  let value: unknown = Number(trimmed);
  if (trimmed.startsWith('=')) {
    const result = evaluateFeel(trimmed.slice(1), variables);
    if (!result.ok) return result.message;
    value = result.value;
  }
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  return `expected a whole number of retries, got ${JSON.stringify(raw)}`;
}

function extensionWork(
  base: WaitBase,
  element: ElementModel,
  implementedBy: string | null,
  variables: Variables,
): ActivityWork {
  const extension: RawXmlElement | undefined = element.extensions.find((raw) => raw.name === implementedBy);
  if (extension === undefined) return { kind: 'failed', message: `nothing implements '${element.id}'` };
  return { kind: 'wait', wait: { ...base, kind: 'script', extension, variables } };
}

/** The `extension.name` of the script wait that runs a script task's JavaScript (no weft extension has it). */
export const JAVASCRIPT_SCRIPT = 'javascript';

// FEEL runs here, in the pure engine; JavaScript is work for the script sandbox, so it opens a
// script wait that the driver's immediate work answers, as it answers a weft pipeline.
function scriptWork(
  base: WaitBase,
  script: { format: string; text: string } | null,
  resultVariable: string | null,
  variables: Variables,
): ActivityWork {
  const elementId = base.elementId;
  if (script?.format === 'javascript') {
    const extension: RawXmlElement = {
      name: JAVASCRIPT_SCRIPT,
      attributes: resultVariable === null ? {} : { resultVariable },
      children: [],
      text: script.text,
    };
    return { kind: 'wait', wait: { ...base, kind: 'script', extension, variables } };
  }
  if (script === null || script.format !== 'feel') {
    return { kind: 'failed', message: `script of '${elementId}' is neither FEEL nor JavaScript` };
  }
  const result = evaluateFeel(script.text, variables);
  if (!result.ok) return { kind: 'failed', message: `script of '${elementId}': ${result.message}` };
  return { kind: 'done', variables: resultVariable === null ? null : { [resultVariable]: result.value } };
}
