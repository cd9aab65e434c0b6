import type { ElementModel, ProcessModel } from '../model/index.js';
import { cloneJson } from './json.js';
import type { Effect, EngineContext, HistoryKind, WaitCloseReason } from './protocol.js';
import type {
  ConditionalWait,
  Incident,
  IncidentKind,
  IncidentRetry,
  InstanceState,
  JsonValue,
  ScopeState,
  TokenState,
  Variables,
  Wait,
} from './types.js';

/** A unit of work on the agenda of one call. */
export type Action =
  /** Run the behaviour of the token's element. */
  | { kind: 'enter'; tokenId: string }
  /** The token's element is done: apply variables and outputs, then leave by its outgoing flows. */
  | { kind: 'complete'; tokenId: string; variables: Variables | null }
  /** Choose and take the outgoing flows of the gateway the token is at. */
  | { kind: 'split'; tokenId: string }
  /** Evaluate the conditions of these conditional waits, in order, and fire those that hold. */
  | { kind: 'conditions'; waitIds: string[] };

/**
 * One call of the engine: the model, the state being changed (a private copy), the effects so far
 * and the agenda of actions still to run. Behaviour modules change the state only through it or
 * directly on `state`, and queue follow-up work instead of recursing.
 */
export class Run {
  readonly effects: Effect[] = [];
  private readonly agenda: Action[] = [];
  // Where the next action is: Array#shift moves every queued action, which is quadratic when a
  // parallel multi-instance body queues thousands at once.
  private agendaHead = 0;
  /** Elements entered in this call by each token's lineage (a token split off inherits the count). */
  readonly steps = new Map<string, number>();
  totalSteps = 0;
  /** Tokens whose next entry skips the element's input mappings (a modification's `skipIoMappings`). */
  readonly skipInputsOf = new Set<string>();
  /** Tokens whose continuation job is running: their next entry does not stop at `asyncBefore` again. */
  readonly pastAsyncBefore = new Set<string>();
  /** Steps the call may take beyond its total bound: the instances parallel bodies started in it. */
  multiInstanceSteps = 0;
  // Indexes of tokens by scope and waits by token, so a multi-instance body with thousands of
  // instances does not scan every token or wait for each one. Built on first use from the object
  // they index, kept up to date by the methods that add and remove, and rebuilt when a behaviour
  // replaces that object (the end of an instance).
  private tokenIndex: {
    of: Record<string, TokenState>;
    byScope: Map<string, Map<string, TokenState>>;
  } | null = null;
  private waitIndex: { of: Record<string, Wait>; byToken: Map<string, Map<string, Wait>> } | null = null;
  // Open conditional waits, so a variable write looks at them without scanning every wait.
  private conditionalIndex: { of: Record<string, Wait>; ids: Set<string> } | null = null;

  constructor(
    readonly model: ProcessModel,
    readonly state: InstanceState,
    readonly ctx: EngineContext,
  ) {}

  private nowText: string | null = null;

  /** The context time as ISO text. */
  now(): string {
    this.nowText ??= this.ctx.now.toISOString();
    return this.nowText;
  }

  /** The model element with this id; a state that names an unknown element is a driver bug. */
  element(id: string): ElementModel {
    const element = this.model.elements[id];
    if (element === undefined) throw new Error(`the model has no element '${id}'`);
    return element;
  }

  /** The live token with this id, or undefined when it has ended. */
  token(id: string): TokenState | undefined {
    return this.state.tokens[id];
  }

  /** The scope with this id; a missing scope is a state invariant broken. */
  scope(id: string): ScopeState {
    const scope = this.state.scopes[id];
    if (scope === undefined) throw new Error(`the instance has no scope '${id}'`);
    return scope;
  }

  /**
   * Lets the instances a multi-instance body starts enter their element without using the total
   * step bound of the call, up to the multi-instance limit in all: a body of many instances is not
   * a loop, but a loop through such a body still stops.
   */
  allowMultiInstanceSteps(instances: number): void {
    this.multiInstanceSteps = Math.min(this.ctx.maxMultiInstance, this.multiInstanceSteps + instances);
  }

  /** Queues an action at the end of the agenda. */
  schedule(action: Action): void {
    if (action.kind === 'conditions') {
      for (const id of action.waitIds)
        this.pendingConditions.set(id, (this.pendingConditions.get(id) ?? 0) + 1);
    }
    this.agenda.push(action);
  }

  // Queued evaluations by conditional wait, so an activity about to leave can run its own first.
  private readonly pendingConditions = new Map<string, number>();

  /** How many evaluations of a conditional wait are queued. */
  pendingEvaluations(waitId: string): number {
    return this.pendingConditions.get(waitId) ?? 0;
  }

  /** Marks queued evaluations of these waits as done (run now, or by their action). */
  settleEvaluations(waitIds: readonly string[]): void {
    for (const id of waitIds) {
      const left = (this.pendingConditions.get(id) ?? 0) - 1;
      if (left > 0) this.pendingConditions.set(id, left);
      else this.pendingConditions.delete(id);
    }
  }

  /** Takes the next action off the agenda; undefined when it is empty. */
  nextAction(): Action | undefined {
    if (this.agendaHead >= this.agenda.length) {
      this.clearAgenda();
      return undefined;
    }
    const action = this.agenda[this.agendaHead];
    this.agendaHead += 1;
    return action;
  }

  /** Drops every queued action (the instance ended). */
  clearAgenda(): void {
    this.agenda.length = 0;
    this.agendaHead = 0;
    this.pendingConditions.clear();
  }

  /** Creates a token at an element; it inherits the step count of `parent` when given. */
  newToken(elementId: string, scopeId: string, arrivedVia: string | null, parent?: string): TokenState {
    const token: TokenState = {
      id: this.ctx.newId(),
      elementId,
      scopeId,
      localScopeId: null,
      arrivedVia,
      phase: 'active',
      multiInstance: null,
      loopCounter: null,
    };
    this.state.tokens[token.id] = token;
    this.indexToken(token);
    if (parent !== undefined) this.steps.set(token.id, this.steps.get(parent) ?? 0);
    return token;
  }

  /** Removes a token (its waits and local scope are the caller's business). */
  dropToken(tokenId: string): void {
    const token = this.state.tokens[tokenId];
    if (token === undefined) return;
    delete this.state.tokens[tokenId];
    this.tokensByScope()?.get(token.scopeId)?.delete(tokenId);
  }

  /** Creates a scope instance. */
  newScope(
    elementId: string,
    parentId: string | null,
    ownerTokenId: string | null,
    variables: Variables,
  ): ScopeState {
    const scope: ScopeState = { id: this.ctx.newId(), elementId, parentId, ownerTokenId, variables };
    this.state.scopes[scope.id] = scope;
    return scope;
  }

  /** The token's local scope, created (empty) when it has none yet. */
  localScopeOf(token: TokenState): ScopeState {
    if (token.localScopeId !== null) return this.scope(token.localScopeId);
    const scope = this.newScope(token.elementId, token.scopeId, token.id, {});
    token.localScopeId = scope.id;
    return scope;
  }

  /** Tokens living in a scope, in creation order. */
  tokensIn(scopeId: string): TokenState[] {
    const inScope = this.tokensByScope(true)?.get(scopeId);
    return inScope === undefined ? [] : [...inScope.values()];
  }

  /** How many tokens live in a scope. */
  countTokensIn(scopeId: string): number {
    return this.tokensByScope(true)?.get(scopeId)?.size ?? 0;
  }

  /** Open waits of a token (its own, its boundary events', its event-based gateway branches). */
  waitsOf(tokenId: string): Wait[] {
    const ofToken = this.waitsByToken(true)?.get(tokenId);
    return ofToken === undefined ? [] : [...ofToken.values()];
  }

  /** Records a wait as open and tells the driver. */
  openWait(wait: Wait): void {
    // The wait may carry parts of the model (a timer, an extension element): state owns a copy.
    // The effect shares it: nothing changes a wait in place, and the next call works on a copy of
    // the state, so one copy is enough (a body of thousands of instances copies their variables once).
    const stored = cloneJson(wait);
    this.state.waits[wait.waitId] = stored;
    const byToken = this.waitsByToken();
    if (byToken !== null) {
      const ofToken = byToken.get(stored.tokenId) ?? new Map<string, Wait>();
      ofToken.set(stored.waitId, stored);
      byToken.set(stored.tokenId, ofToken);
    }
    this.effects.push({ type: 'waitOpened', wait: stored });
    if (stored.kind === 'conditional') {
      this.conditionalIds().add(stored.waitId);
      // A condition already true when its event is entered fires at once (Camunda 7).
      this.schedule({ kind: 'conditions', waitIds: [stored.waitId] });
    }
  }

  /** Open conditional waits, in the order they were opened. */
  conditionalWaits(): ConditionalWait[] {
    const waits: ConditionalWait[] = [];
    for (const id of this.conditionalIds()) {
      const wait = this.state.waits[id];
      if (wait?.kind === 'conditional') waits.push(wait);
    }
    return waits;
  }

  private conditionalIds(): Set<string> {
    if (this.conditionalIndex?.of === this.state.waits) return this.conditionalIndex.ids;
    const ids = new Set<string>();
    for (const wait of Object.values(this.state.waits)) if (wait.kind === 'conditional') ids.add(wait.waitId);
    this.conditionalIndex = { of: this.state.waits, ids };
    return ids;
  }

  /** Removes a wait and tells the driver why. */
  closeWait(waitId: string, reason: WaitCloseReason): void {
    const wait = this.state.waits[waitId];
    if (wait === undefined) return;
    delete this.state.waits[waitId];
    this.waitsByToken()?.get(wait.tokenId)?.delete(waitId);
    this.effects.push({ type: 'waitClosed', waitId, kind: wait.kind, elementId: wait.elementId, reason });
    if (wait.kind !== 'conditional') return;
    this.conditionalIds().delete(waitId);
    // A failed condition's incident belongs to its wait (whose owner may be a scope, not a token).
    for (const incident of Object.values(this.state.incidents)) {
      if (incident.waitId === waitId)
        this.resolveIncident(incident, reason === 'cancelled' ? 'cancelled' : 'terminated');
    }
  }

  // The index of tokens by scope: null when not built (or stale) and `build` is false.
  private tokensByScope(build = false): Map<string, Map<string, TokenState>> | null {
    if (this.tokenIndex?.of === this.state.tokens) return this.tokenIndex.byScope;
    if (!build) return null;
    const byScope = new Map<string, Map<string, TokenState>>();
    this.tokenIndex = { of: this.state.tokens, byScope };
    for (const token of Object.values(this.state.tokens)) this.indexToken(token);
    return byScope;
  }

  private indexToken(token: TokenState): void {
    const byScope = this.tokensByScope();
    if (byScope === null) return;
    const inScope = byScope.get(token.scopeId) ?? new Map<string, TokenState>();
    inScope.set(token.id, token);
    byScope.set(token.scopeId, inScope);
  }

  // The index of open waits by token: null when not built (or stale) and `build` is false.
  private waitsByToken(build = false): Map<string, Map<string, Wait>> | null {
    if (this.waitIndex?.of === this.state.waits) return this.waitIndex.byToken;
    if (!build) return null;
    const byToken = new Map<string, Map<string, Wait>>();
    for (const wait of Object.values(this.state.waits)) {
      const ofToken = byToken.get(wait.tokenId) ?? new Map<string, Wait>();
      ofToken.set(wait.waitId, wait);
      byToken.set(wait.tokenId, ofToken);
    }
    this.waitIndex = { of: this.state.waits, byToken };
    return byToken;
  }

  /** Stops a token with an incident. */
  raiseIncident(
    token: TokenState,
    kind: IncidentKind,
    message: string,
    retry: IncidentRetry,
    waitId: string | null = null,
  ): Incident {
    const incident: Incident = {
      incidentId: this.ctx.newId(),
      kind,
      elementId: token.elementId,
      tokenId: token.id,
      waitId,
      message,
      createdAt: this.now(),
      retry,
    };
    token.phase = 'failed';
    this.state.incidents[incident.incidentId] = incident;
    this.effects.push({ type: 'incidentRaised', incident: cloneJson(incident) });
    this.history('incidentRaised', token.elementId, token.id, {
      incidentId: incident.incidentId,
      incidentKind: kind,
      message,
    });
    return incident;
  }

  /** Closes an incident. */
  resolveIncident(incident: Incident, reason: 'retried' | 'cancelled' | 'terminated'): void {
    delete this.state.incidents[incident.incidentId];
    this.effects.push({
      type: 'incidentResolved',
      incidentId: incident.incidentId,
      elementId: incident.elementId,
      waitId: incident.waitId,
      reason,
    });
    this.history('incidentResolved', incident.elementId, incident.tokenId, {
      incidentId: incident.incidentId,
      reason,
    });
  }

  /** Appends a history entry; the element type comes from the model. */
  history(
    kind: HistoryKind,
    elementId: string,
    tokenId: string | null,
    data: Record<string, JsonValue> = {},
  ): void {
    const elementType =
      this.model.elements[elementId]?.type ??
      (this.model.flows[elementId] !== undefined ? 'sequenceFlow' : 'process');
    this.effects.push({
      type: 'history',
      entry: { kind, elementId, elementType, tokenId, at: this.now(), data: cloneJson(data) },
    });
  }
}
