/**
 * Migration of a running instance from one version of a process to another: a pure function from
 * (source model, target model, state, instructions) to the new state and the effects that close the
 * waits that must change and open the target's, or the list of every problem that forbids it.
 *
 * Waits of elements that map 1:1 and whose trigger is unchanged keep their id (an external task a
 * worker holds, a user task, an armed timer, a message subscription stay the same rows): they are
 * reported as {@link MovedWait}s for the driver to rename. Timers, messages and signals whose
 * definition differs in the target are re-created; boundary events and event sub-processes of the
 * source that are not mapped are withdrawn, those of the target that nothing maps to are opened.
 */
import type { ElementModel, EventDefinition, ProcessModel } from '../model/index.js';
import { buildCatchWait, type CatchTrigger } from './catch-waits.js';
import { cloneJson } from './json.js';
import type { Effect, EngineContext } from './protocol.js';
import { Run } from './run.js';
import type {
  InstanceState,
  JsonValue,
  PendingExecutionListeners,
  TokenState,
  Wait,
  WaitRole,
} from './types.js';

/** One line of a migration plan: the source element's tokens and waits move to the target element. */
export interface MigrationInstruction {
  source: string;
  target: string;
}

/** Why a plan, or an instance under a plan, cannot migrate; `elementId` is the source element. */
export interface MigrationProblem {
  elementId: string | null;
  message: string;
}

/** A wait kept across the migration, whose rows the driver points at the target element. */
export interface MovedWait {
  waitId: string;
  kind: Wait['kind'];
  elementId: string;
}

/** An open incident kept across the migration, now on the target element. */
export interface MovedIncident {
  incidentId: string;
  elementId: string;
}

/** What {@link migrateInstance} gives: the new state, or every problem. */
export type MigrationResult =
  | {
      ok: true;
      state: InstanceState;
      effects: Effect[];
      movedWaits: MovedWait[];
      movedIncidents: MovedIncident[];
    }
  | { ok: false; problems: MigrationProblem[] };

/** Input of {@link migrateInstance}. */
export interface MigrationInput {
  source: ProcessModel;
  target: ProcessModel;
  state: InstanceState;
  instructions: readonly MigrationInstruction[];
  ctx: EngineContext;
  /** Recorded in the `migrated` history entry (the driver puts the definition ids here). */
  data?: Record<string, JsonValue>;
}

/** Instructions mapping every element of `source` to the element of the same id in `target`, when compatible. */
export function generateInstructions(source: ProcessModel, target: ProcessModel): MigrationInstruction[] {
  const instructions: MigrationInstruction[] = [];
  for (const id of Object.keys(source.elements).sort()) {
    const from = source.elements[id];
    const to = target.elements[id];
    if (from === undefined || to === undefined) continue;
    if (incompatibility(from, to) === null) instructions.push({ source: id, target: id });
  }
  return instructions;
}

/** Problems of the instructions themselves: unknown ids, an element mapped twice, incompatible types. */
export function checkInstructions(
  source: ProcessModel,
  target: ProcessModel,
  instructions: readonly MigrationInstruction[],
): MigrationProblem[] {
  const problems: MigrationProblem[] = [];
  const seen = new Set<string>();
  for (const { source: from, target: to } of instructions) {
    const s = source.elements[from];
    const t = target.elements[to];
    if (s === undefined) problems.push({ elementId: from, message: `the source has no element '${from}'` });
    if (t === undefined)
      problems.push({ elementId: from, message: `the target has no element '${to}' to map '${from}' to` });
    if (seen.has(from)) problems.push({ elementId: from, message: `'${from}' is mapped more than once` });
    seen.add(from);
    if (s === undefined || t === undefined) continue;
    const why = incompatibility(s, t);
    if (why !== null) problems.push({ elementId: from, message: `'${from}' cannot map to '${to}': ${why}` });
  }
  return problems;
}

/**
 * Why element `s` of the source cannot become element `t` of the target, or null when it can: a task
 * becomes a task of the same kind and implementation (a job stays a job), a sub-process a
 * sub-process, an event an event of the same trigger kind, a multi-instance activity a
 * multi-instance activity of the same ordering, a gateway a gateway of the same type.
 */
export function incompatibility(s: ElementModel, t: ElementModel): string | null {
  if (s.type !== t.type) return `a ${s.type} cannot become a ${t.type}`;
  if ('eventDefinition' in s && 'eventDefinition' in t && s.eventDefinition?.kind !== t.eventDefinition?.kind)
    return `a ${s.eventDefinition?.kind ?? 'plain'} ${s.type} cannot become a ${t.eventDefinition?.kind ?? 'plain'} ${t.type}`;
  if ('multiInstance' in s && 'multiInstance' in t) {
    if ((s.multiInstance === null) !== (t.multiInstance === null))
      return s.multiInstance === null
        ? 'an activity cannot become a multi-instance activity'
        : 'a multi-instance activity can only become a multi-instance activity';
    if (s.multiInstance !== null && t.multiInstance !== null)
      if (s.multiInstance.isSequential !== t.multiInstance.isSequential)
        return 'a sequential multi-instance activity cannot become a parallel one, nor the reverse';
  }
  if (s.type === 'subProcess' && t.type === 'subProcess' && s.triggeredByEvent !== t.triggeredByEvent)
    return 'an event sub-process and an embedded sub-process cannot become each other';
  if (s.type === 'boundaryEvent' && t.type === 'boundaryEvent' && s.cancelActivity !== t.cancelActivity)
    return 'an interrupting boundary event and a non-interrupting one cannot become each other';
  const sWork = workKind(s);
  const tWork = workKind(t);
  if (sWork !== tWork) return `work done by ${sWork} cannot become work done by ${tWork}`;
  return null;
}

// How a task's work is done: what kind of wait it opens.
function workKind(element: ElementModel): string {
  if ('job' in element && element.job !== null) return 'an external worker';
  if ('implementedBy' in element && element.implementedBy !== null)
    return `the ${element.implementedBy} extension`;
  return 'the engine';
}

/**
 * Migrates one instance's state. Every element where a token stands, joins, waits or failed must be
 * mapped to a compatible element in the same place of the scope hierarchy; a joining token's flows
 * must enter the target gateway. Problems are listed, all of them, and nothing changes.
 */
export function migrateInstance(input: MigrationInput): MigrationResult {
  const { source, target, state, instructions, ctx } = input;
  const problems = checkInstructions(source, target, instructions);
  if (source.processKey !== target.processKey)
    problems.push({ elementId: null, message: 'the target is not a version of the same process' });
  if (problems.length > 0) return { ok: false, problems };
  const map = new Map(instructions.map((i) => [i.source, i.target]));
  map.set(source.processKey, target.processKey);
  problems.push(...instanceProblems(source, target, state, map));
  if (problems.length > 0) return { ok: false, problems };

  const next = cloneJson(state);
  const rename = (id: string) => map.get(id) ?? id;
  next.processKey = target.processKey;
  for (const scope of Object.values(next.scopes)) scope.elementId = rename(scope.elementId);
  for (const token of Object.values(next.tokens)) {
    token.elementId = rename(token.elementId);
    if (token.arrivedVia !== null && target.flows[token.arrivedVia] === undefined) token.arrivedVia = null;
  }
  const joins: InstanceState['joins'] = {};
  for (const join of Object.values(next.joins)) {
    join.gatewayId = rename(join.gatewayId);
    joins[`${join.scopeId}/${join.gatewayId}`] = join;
  }
  next.joins = joins;
  const movedIncidents: MovedIncident[] = [];
  for (const incident of Object.values(next.incidents)) {
    incident.elementId = rename(incident.elementId);
    const { retry } = incident;
    if (retry.action === 'executionListeners' && retry.pending.on.kind === 'element')
      retry.pending.on.id = rename(retry.pending.on.id);
    movedIncidents.push({ incidentId: incident.incidentId, elementId: incident.elementId });
  }

  const run = new Run(target, next, ctx);
  const moved = new Map<string, MovedWait>();
  const recreate: { wait: Wait; trigger: CatchTrigger; elementId: string; role: WaitRole }[] = [];
  const gatewaysToReopen = new Set<string>();
  for (const wait of Object.values(next.waits)) {
    const decision = migrateWait(source, target, wait, map);
    if (decision.kind === 'drop') run.closeWait(wait.waitId, 'cancelled');
    else if (decision.kind === 'reopenGateway') gatewaysToReopen.add(wait.tokenId);
    else if (decision.kind === 'keep') {
      wait.elementId = decision.elementId;
      wait.role = decision.role;
      moved.set(wait.waitId, { waitId: wait.waitId, kind: wait.kind, elementId: wait.elementId });
    } else recreate.push({ wait, ...decision });
  }
  for (const { wait, trigger, elementId, role } of recreate) {
    const token = run.token(wait.tokenId) ?? standIn(next, wait.tokenId);
    run.closeWait(wait.waitId, 'cancelled');
    const built = buildCatchWait(run, token, elementId, trigger, role);
    if (!built.ok) return { ok: false, problems: [{ elementId: wait.elementId, message: built.message }] };
    run.openWait(built.wait);
  }
  for (const tokenId of gatewaysToReopen) {
    const token = run.token(tokenId);
    if (token === undefined) continue;
    for (const wait of run.waitsOf(tokenId)) {
      moved.delete(wait.waitId);
      run.closeWait(wait.waitId, 'cancelled');
    }
    const reopened = openGatewayBranches(run, token);
    if (reopened !== null) return { ok: false, problems: [reopened] };
  }
  const opened = openNewBoundaries(run) ?? openNewEventSubProcesses(run);
  if (opened !== null) return { ok: false, problems: [opened] };

  run.history('migrated', target.processKey, null, input.data ?? {});
  return {
    ok: true,
    state: next,
    effects: run.effects,
    movedWaits: [...moved.values()].filter((w) => next.waits[w.waitId] !== undefined),
    movedIncidents,
  };
}

/** Every problem of one instance under the mapping `map` (source id -> target id). */
function instanceProblems(
  source: ProcessModel,
  target: ProcessModel,
  state: InstanceState,
  map: ReadonlyMap<string, string>,
): MigrationProblem[] {
  const problems: MigrationProblem[] = [];
  const reported = new Set<string>();
  const unmapped = (elementId: string, what: string) => {
    if (reported.has(elementId)) return;
    reported.add(elementId);
    const type = source.elements[elementId]?.type ?? 'element';
    problems.push({ elementId, message: `${what} '${elementId}' (${type}) is not mapped` });
  };
  for (const token of Object.values(state.tokens)) {
    const mapped = map.get(token.elementId);
    if (mapped === undefined) {
      unmapped(token.elementId, 'the active element');
      continue;
    }
    if (token.loopCounter !== null) continue;
    const scope = state.scopes[token.scopeId];
    const scopeTarget = scope === undefined ? undefined : map.get(scope.elementId);
    const parent = target.elements[mapped]?.parentId;
    if (
      scopeTarget !== undefined &&
      parent !== undefined &&
      parent !== scopeTarget &&
      !reported.has(token.elementId)
    ) {
      reported.add(token.elementId);
      problems.push({
        elementId: token.elementId,
        message: `'${token.elementId}' maps to '${mapped}', which is in '${parent}', not in '${scopeTarget}' where its scope goes`,
      });
    }
  }
  for (const scope of Object.values(state.scopes))
    if (!map.has(scope.elementId)) unmapped(scope.elementId, 'the scope');
  for (const join of Object.values(state.joins)) {
    const gateway = map.get(join.gatewayId);
    const into = gateway === undefined ? undefined : target.elements[gateway];
    if (into === undefined) continue;
    for (const flowId of Object.keys(join.arrived)) {
      if ((join.arrived[flowId]?.length ?? 0) > 0 && !into.incoming.includes(flowId))
        problems.push({
          elementId: join.gatewayId,
          message: `tokens joining at '${join.gatewayId}' arrived by '${flowId}', which does not enter '${into.id}'`,
        });
    }
  }
  for (const wait of Object.values(state.waits)) {
    if (wait.role.kind !== 'boundary') continue;
    const boundary = map.get(wait.role.boundaryEventId);
    const host = state.tokens[wait.tokenId];
    const hostTarget = host === undefined ? undefined : map.get(host.elementId);
    const attached = boundary === undefined ? undefined : target.elements[boundary];
    if (attached?.type === 'boundaryEvent' && hostTarget !== undefined && attached.attachedTo !== hostTarget)
      problems.push({
        elementId: wait.role.boundaryEventId,
        message: `'${wait.role.boundaryEventId}' maps to '${attached.id}', which is not attached to '${hostTarget}'`,
      });
  }
  for (const id of Object.keys(state.incidents)) {
    const incident = state.incidents[id];
    if (incident !== undefined && !map.has(incident.elementId))
      unmapped(incident.elementId, 'the failed element');
    // A failed execution listener's step goes on by the flows it names: the target must have them.
    if (incident?.retry.action !== 'executionListeners') continue;
    for (const flowId of listenerFlows(incident.retry.pending)) {
      if (target.flows[flowId] === undefined)
        problems.push({
          elementId: incident.elementId,
          message: `the failed execution listener of '${incident.elementId}' goes on by the flow '${flowId}', which the target does not have`,
        });
    }
  }
  return problems;
}

// The flows a failed execution listener's step names: the flow it is on, the flows it takes.
function listenerFlows(pending: PendingExecutionListeners): string[] {
  const flows = pending.on.kind === 'flow' ? [pending.on.id] : [];
  if (pending.then.kind === 'takeFlows') flows.push(...pending.then.flowIds);
  if (pending.then.kind === 'takeBranch') flows.push(pending.then.flowId);
  return flows;
}

type WaitDecision =
  | { kind: 'keep'; elementId: string; role: WaitRole }
  | { kind: 'recreate'; trigger: CatchTrigger; elementId: string; role: WaitRole }
  | { kind: 'drop' }
  | { kind: 'reopenGateway' };

/** What becomes of one wait (the state's ids are already renamed, `wait.elementId` is not yet). */
function migrateWait(
  source: ProcessModel,
  target: ProcessModel,
  wait: Wait,
  map: ReadonlyMap<string, string>,
): WaitDecision {
  const role = wait.role;
  const mapped = map.get(wait.elementId);
  if (role.kind === 'eventGateway') {
    const branch = mapped === undefined ? undefined : target.elements[mapped];
    const flow = target.flows[role.flowId];
    const same =
      branch !== undefined &&
      flow?.targetId === branch.id &&
      sameTrigger(source.elements[wait.elementId], branch);
    return same
      ? { kind: 'keep', elementId: branch.id, role: { ...role, targetElementId: branch.id } }
      : { kind: 'reopenGateway' };
  }
  if (mapped === undefined) return { kind: 'drop' };
  const to = target.elements[mapped];
  if (to === undefined) return { kind: 'drop' };
  const newRole: WaitRole =
    role.kind === 'boundary'
      ? {
          ...role,
          boundaryEventId: mapped,
          interrupting: to.type === 'boundaryEvent' ? to.cancelActivity : role.interrupting,
        }
      : role.kind === 'eventSubProcess' && to.type === 'startEvent'
        ? { ...role, interrupting: to.isInterrupting }
        : role;
  if (wait.kind !== 'timer' && wait.kind !== 'message' && wait.kind !== 'signal')
    return { kind: 'keep', elementId: mapped, role: newRole };
  if (sameTrigger(source.elements[wait.elementId], to))
    return { kind: 'keep', elementId: mapped, role: newRole };
  const trigger = triggerOf(to);
  if (trigger === null) return { kind: 'drop' };
  return { kind: 'recreate', trigger, elementId: mapped, role: newRole };
}

/** What an element catches: its event definition, or a receive task's message. */
function triggerOf(element: ElementModel | undefined): CatchTrigger | null {
  if (element === undefined) return null;
  if (element.type === 'receiveTask')
    return { kind: 'receive', messageName: element.messageName, correlationKey: element.correlationKey };
  if ('eventDefinition' in element) return element.eventDefinition;
  return null;
}

/** True when both elements catch the same thing (same timer, message and key, or signal). */
function sameTrigger(a: ElementModel | undefined, b: ElementModel | undefined): boolean {
  const x = triggerOf(a);
  const y = triggerOf(b);
  if (x === null || y === null) return x === y;
  return JSON.stringify(normalise(x)) === JSON.stringify(normalise(y));
}

function normalise(trigger: CatchTrigger): unknown {
  switch (trigger.kind) {
    case 'timer':
      return trigger.timer;
    case 'message':
    case 'receive':
      return { messageName: trigger.messageName, correlationKey: trigger.correlationKey };
    case 'signal':
      return trigger.signalName;
    default:
      return (trigger as EventDefinition).kind;
  }
}

/** A token standing in for the owner of a scope's event sub-process waits (the root scope has none). */
function standIn(state: InstanceState, ownerId: string): TokenState {
  const scope = Object.values(state.scopes).find((s) => s.ownerTokenId === ownerId || s.id === ownerId);
  return {
    id: ownerId,
    elementId: scope?.elementId ?? state.processKey,
    scopeId: scope?.id ?? state.rootScopeId,
    localScopeId: null,
    arrivedVia: null,
    phase: 'waiting',
    multiInstance: null,
    loopCounter: null,
  };
}

/** Opens the branches of the target's event-based gateway where `token` waits. */
function openGatewayBranches(run: Run, token: TokenState): MigrationProblem | null {
  const gateway = run.element(token.elementId);
  for (const flowId of gateway.outgoing) {
    const branch = run.model.elements[run.model.flows[flowId]?.targetId ?? ''];
    const trigger = triggerOf(branch);
    if (branch === undefined || trigger === null) continue;
    const role = { kind: 'eventGateway' as const, flowId, targetElementId: branch.id };
    const built = buildCatchWait(run, token, branch.id, trigger, role);
    if (!built.ok) return { elementId: gateway.id, message: built.message };
    run.openWait(built.wait);
  }
  return null;
}

/** Opens the timer, message and signal boundary events of waiting activities that nothing mapped. */
function openNewBoundaries(run: Run): MigrationProblem | null {
  for (const token of Object.values(run.state.tokens)) {
    if (token.phase !== 'waiting' || token.loopCounter !== null) continue;
    const element = run.model.elements[token.elementId];
    if (element === undefined || !('boundaryEventIds' in element)) continue;
    const open = new Set(
      run
        .waitsOf(token.id)
        .flatMap((wait) => (wait.role.kind === 'boundary' ? [wait.role.boundaryEventId] : [])),
    );
    for (const boundaryId of element.boundaryEventIds) {
      const boundary = run.element(boundaryId);
      if (
        open.has(boundaryId) ||
        boundary.type !== 'boundaryEvent' ||
        boundary.eventDefinition.kind === 'error'
      )
        continue;
      const role = {
        kind: 'boundary' as const,
        boundaryEventId: boundaryId,
        interrupting: boundary.cancelActivity,
      };
      const built = buildCatchWait(run, token, boundaryId, boundary.eventDefinition, role);
      if (!built.ok) return { elementId: boundaryId, message: built.message };
      run.openWait(built.wait);
    }
  }
  return null;
}

/**
 * Opens the start waits of the target's event sub-processes that nothing mapped, in every live scope
 * of the process or a sub-process where no event sub-process runs (an interrupting one that ran
 * closed the others, and they stay closed).
 */
function openNewEventSubProcesses(run: Run): MigrationProblem | null {
  const { state, model } = run;
  for (const scope of Object.values(state.scopes)) {
    const container = scope.id === state.rootScopeId ? model : model.elements[scope.elementId];
    if (container === undefined || !('eventSubProcessIds' in container)) continue;
    if (scope.id !== state.rootScopeId) {
      const owner = scope.ownerTokenId === null ? undefined : state.tokens[scope.ownerTokenId];
      if (owner === undefined || owner.multiInstance !== null) continue;
    }
    const inScope = run.tokensIn(scope.id);
    if (
      inScope.some(
        (t) => model.elements[t.elementId]?.type === 'subProcess' && isEventSubProcess(model, t.elementId),
      )
    )
      continue;
    const ownerId = scope.ownerTokenId ?? scope.id;
    const open = new Set(
      Object.values(state.waits).flatMap((w) =>
        w.role.kind === 'eventSubProcess' && w.role.scopeId === scope.id ? [w.elementId] : [],
      ),
    );
    for (const espId of container.eventSubProcessIds) {
      const esp = model.elements[espId];
      const startId = esp?.type === 'subProcess' ? esp.startEventIds[0] : undefined;
      const start = startId === undefined ? undefined : model.elements[startId];
      if (start?.type !== 'startEvent' || start.eventDefinition.kind === 'error' || open.has(start.id))
        continue;
      const role = {
        kind: 'eventSubProcess' as const,
        scopeId: scope.id,
        interrupting: start.isInterrupting,
      };
      const token: TokenState = { ...standIn(state, ownerId), scopeId: scope.id };
      const built = buildCatchWait(run, token, start.id, start.eventDefinition, role);
      if (!built.ok) return { elementId: start.id, message: built.message };
      run.openWait(built.wait);
    }
  }
  return null;
}

function isEventSubProcess(model: ProcessModel, id: string): boolean {
  const element = model.elements[id];
  return element?.type === 'subProcess' && element.triggeredByEvent;
}
