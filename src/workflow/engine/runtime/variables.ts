import { type VariableChange, watchVariableChanges } from './condition-watch.js';
import { cloneJson, setOwn } from './json.js';
import type { Run } from './run.js';
import type { InstanceState, ScopeState, TokenState, Variables } from './types.js';

/** The variables visible from a scope: its own over its parents', up to the root (a fresh copy). */
export function visibleVariables(state: InstanceState, scopeId: string): Variables {
  const chain: ScopeState[] = [];
  for (let id: string | null = scopeId; id !== null;) {
    const scope: ScopeState | undefined = state.scopes[id];
    if (scope === undefined) break;
    chain.push(scope);
    id = scope.parentId;
  }
  const result: Variables = {};
  for (const scope of chain.reverse()) {
    for (const [key, value] of Object.entries(scope.variables)) setOwn(result, key, value);
  }
  return cloneJson(result);
}

/** The variables a token's element sees: from its local scope when it has one. */
export function tokenVariables(state: InstanceState, token: TokenState): Variables {
  return visibleVariables(state, token.localScopeId ?? token.scopeId);
}

/**
 * The variables a message or signal throw sends: its input mappings when it has any (its local
 * scope), else every variable it sees.
 */
export function messagePayload(run: Run, token: TokenState): Variables {
  if (token.localScopeId === null) return tokenVariables(run.state, token);
  return cloneJson(run.scope(token.localScopeId).variables);
}

/**
 * Sets variables the Camunda way: each goes to the nearest scope, from `scopeId` outwards, that
 * already defines it, else to the root. Records one history entry per scope written.
 */
export function setVariables(run: Run, scopeId: string, variables: Variables, tokenId: string | null): void {
  const byScope = new Map<string, Variables>();
  for (const [key, value] of Object.entries(variables)) {
    const target = definingScope(run.state, scopeId, key) ?? run.state.rootScopeId;
    const changes = byScope.get(target) ?? {};
    setOwn(changes, key, value);
    byScope.set(target, changes);
  }
  for (const [target, changes] of byScope) setLocalVariables(run, target, changes, tokenId);
}

/** Sets variables on exactly this scope. */
export function setLocalVariables(
  run: Run,
  scopeId: string,
  variables: Variables,
  tokenId: string | null,
): void {
  const keys = Object.keys(variables);
  if (keys.length === 0) return;
  const scope = run.scope(scopeId);
  const copy = cloneJson(variables);
  const changes: VariableChange[] = keys.map((key) => [
    key,
    Object.hasOwn(scope.variables, key) ? 'update' : 'create',
  ]);
  for (const key of keys) setOwn(scope.variables, key, copy[key] ?? null);
  const element = scope.parentId === null ? run.model.processKey : scope.elementId;
  run.history('variablesUpdated', element, tokenId, { scopeId, variables: copy });
  // Every variable write of the engine passes here: conditional events that see it are evaluated.
  watchVariableChanges(run, scopeId, changes);
}

function definingScope(state: InstanceState, scopeId: string, key: string): string | null {
  for (let id: string | null = scopeId; id !== null;) {
    const scope: ScopeState | undefined = state.scopes[id];
    if (scope === undefined) return null;
    if (Object.hasOwn(scope.variables, key)) return id;
    id = scope.parentId;
  }
  return null;
}
