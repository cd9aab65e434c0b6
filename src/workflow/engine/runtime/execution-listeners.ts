import type { ListenerModel } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type {
  AfterExecutionListeners,
  ListenerHostRef,
  PendingExecutionListeners,
  ScriptWait,
  TokenState,
  Variables,
} from './types.js';
import { setVariables, tokenVariables, visibleVariables } from './variables.js';

/**
 * Camunda 7 execution listeners (docs/workflow/camunda7.md, "Listeners"): `start` when a flow node
 * is entered (after its input mappings, before its behaviour) and when the instance starts, `end`
 * when it completes (after its output mappings) and when the instance completes, `take` when a
 * sequence flow is taken. They run in model order: a JUEL listener here, in the engine call that
 * fires it; a JavaScript listener opens a script wait named {@link EXECUTION_LISTENER_SCRIPT} that
 * the driver answers at once from the sandbox. The listeners after it, and the step of the engine
 * they interrupted, travel on that wait and go on when it is answered
 * (execution-listener-resume.ts).
 */

/** The `extension.name` of the script wait that runs a JavaScript execution listener. */
export const EXECUTION_LISTENER_SCRIPT = 'executionListener';

/** The listeners of the process, a flow node or a sequence flow. */
export function hostListeners(run: Run, on: ListenerHostRef): readonly ListenerModel[] {
  switch (on.kind) {
    case 'process':
      return run.model.listeners ?? [];
    case 'element':
      return run.model.elements[on.id]?.listeners ?? [];
    case 'flow':
      return run.model.flows[on.id]?.listeners ?? [];
  }
}

/** The id that names a listener's host: the process key, the flow node's or the flow's id. */
export function hostId(run: Run, on: ListenerHostRef): string {
  return on.kind === 'process' ? run.model.processKey : on.id;
}

/**
 * Runs the execution listeners of `event` on `on` for `token` (for the process's own listeners, the
 * token that holds the instance's place: its start token, or one made for the end). Returns true
 * when every one ran here and the caller goes on with its step; false when a JavaScript listener's
 * wait opened or a listener failed (an incident): the step then goes on with `then` once the
 * script has answered or the incident is retried.
 */
export function runExecutionListeners(
  run: Run,
  token: TokenState,
  on: ListenerHostRef,
  event: PendingExecutionListeners['event'],
  then: AfterExecutionListeners,
): boolean {
  const listeners = hostListeners(run, on);
  if (listeners.length === 0) return true;
  const queue: number[] = [];
  listeners.forEach((listener, index) => {
    if (listener.kind === 'execution' && listener.event === event) queue.push(index);
  });
  if (queue.length === 0) return true;
  return runListenerQueue(run, token, { on, event, queue, then });
}

/** True when the host has execution listeners of this event. */
export function hasExecutionListeners(
  run: Run,
  on: ListenerHostRef,
  event: PendingExecutionListeners['event'],
): boolean {
  return hostListeners(run, on).some((listener) => listener.kind === 'execution' && listener.event === event);
}

/**
 * Runs queued listeners until one is JavaScript (its wait opens: false) or one fails (false after
 * its incident), or all ran (true).
 */
export function runListenerQueue(run: Run, token: TokenState, pending: PendingExecutionListeners): boolean {
  const listeners = hostListeners(run, pending.on);
  const queue = [...pending.queue];
  while (queue.length > 0) {
    const index = queue[0] as number;
    const listener = listeners[index];
    if (listener?.script != null) {
      openListenerWait(run, token, listener, index, { ...pending, queue: queue.slice(1) });
      return false;
    }
    if (listener?.expression != null) {
      const failure = evaluateListener(run, token, pending.on, listener.expression);
      if (failure !== null) {
        const message = `execution listener (event '${pending.event}') of '${hostId(run, pending.on)}' failed: ${failure}`;
        if (!listenerFailed(run, token, { ...pending, queue: [...queue] }, message)) return false;
      }
    }
    queue.shift();
  }
  return true;
}

/**
 * A listener failed (`pending.queue` starts with it). Where Camunda would roll the step back, an
 * incident whose retry runs it and those after it again: false. The process's `end` listeners
 * cannot stop an instance whose tokens have all ended: the failure is recorded in history and the
 * rest run: true.
 */
export function listenerFailed(
  run: Run,
  token: TokenState,
  pending: PendingExecutionListeners,
  message: string,
): boolean {
  if (pending.then.kind === 'endInstance') {
    run.history('listenerFailed', run.model.processKey, null, { event: pending.event, message });
    return true;
  }
  run.raiseIncident(token, 'expression', message, { action: 'executionListeners', pending });
  return false;
}

/**
 * Sets what a listener set: for the process's listeners in the instance, for a flow node's or a
 * flow's on the nearest scope of the token that has the variable (else the instance), as Camunda's
 * `execution.setVariable` does.
 */
export function setListenerVariables(
  run: Run,
  token: TokenState,
  on: ListenerHostRef,
  writes: Variables,
): void {
  if (Object.keys(writes).length === 0) return;
  if (on.kind === 'process') setVariables(run, run.state.rootScopeId, writes, null);
  else setVariables(run, token.scopeId, writes, token.id);
}

// The host's type, as history names it.
function hostType(run: Run, on: ListenerHostRef): string {
  if (on.kind === 'process') return 'process';
  if (on.kind === 'flow') return 'sequenceFlow';
  return run.model.elements[on.id]?.type ?? 'process';
}

// What a listener of this host sees: the instance's variables, or the token's.
function listenerVariables(run: Run, token: TokenState, on: ListenerHostRef): Variables {
  return on.kind === 'process'
    ? visibleVariables(run.state, run.state.rootScopeId)
    : tokenVariables(run.state, token);
}

function evaluateListener(
  run: Run,
  token: TokenState,
  on: ListenerHostRef,
  expression: string,
): string | null {
  const writes: Variables = {};
  const scope = expressionScope(run, on.kind === 'process' ? undefined : { id: token.id, elementId: on.id });
  const result = evaluateExpression(expression, listenerVariables(run, token, on), {
    ...scope,
    ...(scope.execution === undefined
      ? {}
      : {
          execution: {
            ...scope.execution,
            setVariable: (name: string, value: unknown) => {
              writes[name] = JSON.parse(JSON.stringify(value ?? null)) as Variables[string];
            },
          },
        }),
  });
  if (!result.ok) return result.message;
  setListenerVariables(run, token, on, writes);
  return null;
}

function openListenerWait(
  run: Run,
  token: TokenState,
  listener: ListenerModel,
  index: number,
  pending: PendingExecutionListeners,
): void {
  token.phase = 'waiting';
  const wait: ScriptWait = {
    waitId: run.ctx.newId(),
    elementId: token.elementId,
    tokenId: token.id,
    role: { kind: 'activity' },
    openedAt: run.now(),
    kind: 'script',
    extension: {
      name: EXECUTION_LISTENER_SCRIPT,
      attributes: {
        event: pending.event,
        index: String(index),
        host: hostId(run, pending.on),
        hostKind: pending.on.kind,
        hostType: hostType(run, pending.on),
      },
      children: [],
      text: listener.script ?? '',
    },
    variables: listenerVariables(run, token, pending.on),
    executionListener: pending,
  };
  run.openWait(wait);
}
