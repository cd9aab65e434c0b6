import type { ElementModel, SubProcessModel } from '../model/index.js';
import { openWaits, prepareBoundaryWaits } from './boundary.js';
import { openEventSubProcesses } from './event-sub-processes.js';
import { takeFlows } from './flows.js';
import { applyInputs } from './mappings.js';
import type { EngineError, ModificationInstruction } from './protocol.js';
import type { Run } from './run.js';
import { isLive } from './run-loop.js';
import { endInstance } from './scope-end.js';
import { terminateToken } from './terminate.js';
import type { TokenState, Variables } from './types.js';
import { setLocalVariables } from './variables.js';

/** The `modify` event's input, as {@link modifyInstance} reads it. */
export interface Modification {
  instructions: readonly ModificationInstruction[];
  variables: Variables | null;
  skipIoMappings: boolean;
  actor: string | null;
}

/**
 * Applies an operator's modification (Camunda 7's process instance modification) to the run's
 * private state: the variables first, then the instructions in order. Every problem is collected;
 * with any, the caller drops the run, so a modification applies entirely or not at all.
 *
 * - `startBeforeActivity` puts a new token on the element and `startAfterActivity` on its one
 *   outgoing flow, in the scope instance of the element's sub-process. With no `ancestorScopeId`,
 *   the innermost enclosing sub-process that runs exactly once is used and the missing ones below
 *   it are created (their boundary and event sub-process waits open); one that runs several times
 *   is ambiguous. A multi-instance sub-process is never created.
 * - `cancelActivity` and `cancelToken` terminate tokens (and everything inside them). Whether a
 *   scope is left empty is decided after the last instruction, so their order does not matter: an
 *   emptied sub-process is cancelled in turn and an emptied process instance ends as cancelled.
 */
export function modifyInstance(run: Run, modification: Modification): EngineError | null {
  const problems = staticProblems(run, modification.instructions);
  if (problems.length > 0) return refusal(problems);
  run.history('modified', run.model.processKey, null, {
    actor: modification.actor,
    instructions: modification.instructions.map((instruction) => ({ ...instruction })),
  });
  if (modification.variables !== null)
    setLocalVariables(run, run.state.rootScopeId, modification.variables, null);
  const emptied = new Set<string>();
  modification.instructions.forEach((instruction, index) => {
    const problem = apply(run, instruction, modification.skipIoMappings, emptied);
    if (problem !== null) problems.push(`instruction ${index}: ${problem}`);
  });
  if (problems.length > 0) return refusal(problems);
  for (const scopeId of emptied) cancelIfEmpty(run, scopeId);
  return null;
}

function refusal(problems: string[]): EngineError {
  return { code: 'invalidModification', message: problems.join('; '), problems };
}

// The problems that need only the model and the state as it was before the modification.
function staticProblems(run: Run, instructions: readonly ModificationInstruction[]): string[] {
  // Events come from JSON: a missing list is refused like an empty one.
  const list: unknown = instructions;
  if (!Array.isArray(list) || list.length === 0) return ['no instructions given'];
  const problems: string[] = [];
  instructions.forEach((instruction, index) => {
    const problem = staticProblem(run, instruction);
    if (problem !== null) problems.push(`instruction ${index}: ${problem}`);
  });
  return problems;
}

function staticProblem(run: Run, instruction: ModificationInstruction): string | null {
  switch (instruction.type) {
    case 'startBeforeActivity':
    case 'startAfterActivity': {
      const element = run.model.elements[instruction.activityId];
      if (element === undefined) return `the model has no element '${instruction.activityId}'`;
      if (element.type === 'boundaryEvent')
        return `'${element.id}' is a boundary event: start before or after its activity instead`;
      if (isEventSubProcess(element) || insideEventSubProcess(run, element))
        return `'${element.id}' is in an event sub-process, which only its trigger starts`;
      if (instruction.type === 'startAfterActivity' && element.outgoing.length !== 1)
        return `'${element.id}' has ${element.outgoing.length} outgoing flows; start after needs exactly one`;
      return null;
    }
    case 'cancelActivity':
      if (run.model.elements[instruction.activityId] === undefined)
        return `the model has no element '${instruction.activityId}'`;
      if (!Object.values(run.state.tokens).some((token) => token.elementId === instruction.activityId))
        return `no token is at '${instruction.activityId}'`;
      return null;
    case 'cancelToken': {
      const token = run.state.tokens[instruction.tokenId];
      if (token === undefined) return `the instance has no token '${instruction.tokenId}'`;
      if (token.loopCounter !== null)
        return `token '${token.id}' is one instance of multi-instance '${token.elementId}': cancel its body token`;
      return null;
    }
    default:
      return `unknown instruction type ${JSON.stringify((instruction as { type?: unknown }).type)}`;
  }
}

function apply(
  run: Run,
  instruction: ModificationInstruction,
  skipIoMappings: boolean,
  emptied: Set<string>,
): string | null {
  switch (instruction.type) {
    case 'startBeforeActivity':
    case 'startAfterActivity': {
      const element = run.element(instruction.activityId);
      const scopeId = scopeFor(run, element, instruction.ancestorScopeId, skipIoMappings);
      if (typeof scopeId !== 'string') return scopeId.problem;
      const token = run.newToken(element.id, scopeId, null);
      if (instruction.type === 'startBeforeActivity') {
        if (skipIoMappings) run.skipInputsOf.add(token.id);
        run.schedule({ kind: 'enter', tokenId: token.id });
      } else {
        // Leaves by its one flow as if the element had completed (its outputs are not applied).
        takeFlows(run, token, element.outgoing);
      }
      return null;
    }
    case 'cancelActivity':
      // Outermost first: a multi-instance body or sub-process takes what is inside it along.
      for (const token of Object.values(run.state.tokens)) {
        if (token.elementId !== instruction.activityId || run.token(token.id) === undefined) continue;
        if (token.loopCounter !== null && hasLiveBody(run, token)) continue;
        cancel(run, token, emptied);
      }
      return null;
    case 'cancelToken': {
      const token = run.token(instruction.tokenId);
      // Already cancelled with its scope by an earlier instruction.
      if (token !== undefined) cancel(run, token, emptied);
      return null;
    }
  }
}

function cancel(run: Run, token: TokenState, emptied: Set<string>): void {
  emptied.add(token.scopeId);
  terminateToken(run, token, 'cancelled');
}

function hasLiveBody(run: Run, instance: TokenState): boolean {
  const owner = run.state.scopes[instance.scopeId]?.ownerTokenId;
  return owner !== null && owner !== undefined && run.token(owner) !== undefined;
}

/**
 * A scope left without tokens by the cancellations is cancelled in turn: its owner token is
 * terminated (for an instance of a multi-instance body, the whole body), up to the root, where the
 * instance ends as cancelled (as in Camunda 7).
 */
function cancelIfEmpty(run: Run, startScopeId: string): void {
  for (let scopeId = startScopeId; ;) {
    // An earlier emptied scope may have ended the instance already.
    if (!isLive(run.state.status)) return;
    const scope = run.state.scopes[scopeId];
    if (scope === undefined || run.countTokensIn(scopeId) > 0) return;
    if (scope.parentId === null) {
      endInstance(run, 'cancelled');
      return;
    }
    let owner = scope.ownerTokenId === null ? undefined : run.token(scope.ownerTokenId);
    if (owner?.loopCounter !== null && owner !== undefined) {
      const bodyId = run.state.scopes[owner.scopeId]?.ownerTokenId;
      owner = bodyId === null || bodyId === undefined ? owner : (run.token(bodyId) ?? owner);
    }
    if (owner === undefined) return;
    const parentScopeId = owner.scopeId;
    terminateToken(run, owner, 'cancelled');
    scopeId = parentScopeId;
  }
}

/**
 * The scope instance a started token goes into: the one of the element's enclosing sub-process,
 * created (with the ones above it) when it does not run yet.
 */
function scopeFor(
  run: Run,
  element: ElementModel,
  ancestorScopeId: string | undefined,
  skipIoMappings: boolean,
): string | { problem: string } {
  // The enclosing sub-processes, innermost first; the process key ends the chain.
  const chain: string[] = [];
  for (let id = element.parentId; id !== run.model.processKey;) {
    chain.push(id);
    id = run.element(id).parentId;
  }
  let base: { scopeId: string; depth: number } | null = null;
  if (ancestorScopeId !== undefined) {
    const scope = run.state.scopes[ancestorScopeId];
    if (scope === undefined || !isContainer(run, ancestorScopeId))
      return { problem: `the instance has no scope '${ancestorScopeId}' that holds tokens` };
    const depth = scope.parentId === null ? chain.length : chain.indexOf(scope.elementId);
    if (depth < 0)
      return {
        problem: `scope '${ancestorScopeId}' (of '${scope.elementId}') does not enclose '${element.id}'`,
      };
    base = { scopeId: ancestorScopeId, depth };
  } else {
    for (let depth = 0; depth < chain.length && base === null; depth++) {
      const subProcessId = chain[depth] as string;
      const running = containersOf(run, subProcessId);
      if (running.length > 1)
        return {
          problem: `'${subProcessId}' runs ${running.length} times (scopes ${running.join(', ')}): give ancestorScopeId`,
        };
      if (running.length === 1) base = { scopeId: running[0] as string, depth };
    }
    base ??= { scopeId: run.state.rootScopeId, depth: chain.length };
  }
  // Create the missing sub-processes from just below the base down to the element's own.
  let scopeId = base.scopeId;
  for (let depth = base.depth - 1; depth >= 0; depth--) {
    const subProcess = run.element(chain[depth] as string) as SubProcessModel;
    if (subProcess.multiInstance !== null)
      return {
        problem: `'${subProcess.id}' is a multi-instance sub-process that is not running: give the ancestorScopeId of one of its instances`,
      };
    const created = enterScopeOnly(run, subProcess, scopeId, skipIoMappings);
    if (created === null) return { problem: `'${subProcess.id}' could not be entered` };
    scopeId = created;
  }
  return scopeId;
}

/**
 * Activates a sub-process without starting it: its token waits with its boundary and event
 * sub-process waits open, and its local scope is returned for the token the instruction starts.
 * Null when an input mapping or a wait's expression raised an incident.
 */
function enterScopeOnly(
  run: Run,
  subProcess: SubProcessModel,
  parentScopeId: string,
  skipIoMappings: boolean,
): string | null {
  const token = run.newToken(subProcess.id, parentScopeId, null);
  run.history('elementActivated', subProcess.id, token.id, {});
  if (!skipIoMappings && !applyInputs(run, token, subProcess)) return null;
  const boundaries = prepareBoundaryWaits(run, token, subProcess);
  if (boundaries === null) return null;
  const scope = run.localScopeOf(token);
  if (!openEventSubProcesses(run, scope.id, token.id, subProcess, token)) return null;
  token.phase = 'waiting';
  openWaits(run, boundaries);
  return scope.id;
}

// Scopes in which the children of a sub-process live (not a multi-instance body's own scope).
function containersOf(run: Run, subProcessId: string): string[] {
  return Object.values(run.state.scopes)
    .filter((scope) => scope.elementId === subProcessId && isContainer(run, scope.id))
    .map((scope) => scope.id);
}

function isContainer(run: Run, scopeId: string): boolean {
  const scope = run.state.scopes[scopeId];
  if (scope === undefined) return false;
  if (scope.ownerTokenId === null) return scope.parentId === null;
  const owner = run.token(scope.ownerTokenId);
  return (
    owner !== undefined && owner.multiInstance === null && run.element(owner.elementId).type === 'subProcess'
  );
}

function isEventSubProcess(element: ElementModel): boolean {
  return element.type === 'subProcess' && element.triggeredByEvent;
}

function insideEventSubProcess(run: Run, element: ElementModel): boolean {
  for (let id = element.parentId; id !== run.model.processKey;) {
    const parent = run.element(id);
    if (isEventSubProcess(parent)) return true;
    id = parent.parentId;
  }
  return false;
}
