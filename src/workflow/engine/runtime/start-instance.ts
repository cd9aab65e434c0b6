import type { ProcessModel } from '../model/index.js';
import { instantiatesProcess } from './instantiating-receive.js';
import { cloneJson, nonJsonPath, setOwn } from './json.js';
import type { EngineContext, EngineResult, StartInput } from './protocol.js';
import { runExecutionListeners } from './execution-listeners.js';
import { Run } from './run.js';
import { drain, drainPausing } from './run-loop.js';
import type { InstanceState } from './types.js';

/**
 * Starts an instance at a start event of the process (the none start event unless another top-level
 * start event is named, e.g. the message start that a driver correlated, or an instantiating
 * receive task) and runs it until every
 * token waits. A process of scripts and gateways only completes within this call.
 */
export function startInstance(model: ProcessModel, input: StartInput, ctx: EngineContext): EngineResult {
  const begun = beginStart(model, input, ctx);
  if (!(begun instanceof Run)) return begun;
  drain(begun);
  return { ok: true, state: begun.state, effects: begun.effects };
}

/**
 * {@link startInstance} that calls `pause` between slices of its work (see `drainPausing`), for a
 * driver that must stay responsive while a start creates thousands of tokens. Same result.
 */
export async function startInstancePausing(
  model: ProcessModel,
  input: StartInput,
  ctx: EngineContext,
  pause: () => Promise<void>,
): Promise<EngineResult> {
  const begun = beginStart(model, input, ctx);
  if (!(begun instanceof Run)) return begun;
  await drainPausing(begun, pause);
  return { ok: true, state: begun.state, effects: begun.effects };
}

// The new instance with its start token on the agenda, or the refusal.
function beginStart(model: ProcessModel, input: StartInput, ctx: EngineContext): Run | EngineResult {
  const bad = nonJsonPath(input.variables, 'variables');
  if (bad !== null || typeof input.variables !== 'object' || Array.isArray(input.variables)) {
    return {
      ok: false,
      error: { code: 'invalidVariables', message: `${bad ?? 'variables'} is not a JSON value` },
    };
  }
  const startId = input.startEventId ?? model.startEventIds.none[0];
  const start = startId === undefined ? undefined : model.elements[startId];
  const startable = start?.type === 'startEvent' || (start !== undefined && instantiatesProcess(start));
  if (start === undefined || !startable || start.parentId !== model.processKey) {
    const message =
      startId === undefined
        ? `process '${model.processKey}' has no none start event`
        : `'${startId}' is not a start event of process '${model.processKey}'`;
    return { ok: false, error: { code: 'noStartEvent', message } };
  }
  const rootScopeId = ctx.newId();
  const variables = cloneJson(input.variables);
  // Set after the given variables, so a caller cannot pass someone else's id as the initiator.
  if (start.type === 'startEvent' && start.initiator !== undefined)
    setOwn(variables, start.initiator, input.initiator ?? null);
  const state: InstanceState = {
    format: 1,
    processKey: model.processKey,
    status: 'running',
    rootScopeId,
    scopes: {
      [rootScopeId]: {
        id: rootScopeId,
        elementId: model.processKey,
        parentId: null,
        ownerTokenId: null,
        variables,
      },
    },
    tokens: {},
    waits: {},
    joins: {},
    incidents: {},
    ...(input.calledByParent === true ? { calledByParent: true as const } : {}),
  };
  const run = new Run(model, state, ctx);
  run.history('instanceStarted', model.processKey, null, { startEventId: start.id, variables });
  const token = run.newToken(start.id, rootScopeId, null);
  // The start token holds the instance's place while the process's own `start` listeners run.
  if (runExecutionListeners(run, token, { kind: 'process' }, 'start', { kind: 'enterStart' }))
    run.schedule({ kind: 'enter', tokenId: token.id });
  return run;
}
