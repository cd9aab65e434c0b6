import type { ElementModel, MappingValue, VariableMapping } from '../model/index.js';
import { evaluateExpression, expressionScope, type ExpressionScope } from './expression.js';
import type { FeelResult } from './feel.js';
import { cloneJson, setOwn } from './json.js';
import type { Run } from './run.js';
import type { JsonValue, TokenState, Variables } from './types.js';
import { setLocalVariables, setVariables, tokenVariables } from './variables.js';

/**
 * Applies an element's input mappings as local variables of the token (each mapping sees the ones
 * before it). Returns false after raising an incident when an expression fails.
 */
export function applyInputs(run: Run, token: TokenState, element: ElementModel): boolean {
  if (element.inputs.length === 0) return true;
  const context = tokenVariables(run.state, token);
  const values = evaluateMappings(run, token, element.inputs, context, { action: 'activate' });
  if (values === null) return false;
  setLocalVariables(run, run.localScopeOf(token).id, values, token.id);
  return true;
}

/**
 * Stores what an element completed with. Without output mappings the variables go to the nearest
 * scope that defines them, else the root. With output mappings (as in Zeebe) they stay local to the
 * element, and only the outputs, evaluated over them, are propagated. A call activity that does not
 * propagate all child variables keeps them local as well. Returns false after raising an incident.
 */
export function applyCompletion(
  run: Run,
  token: TokenState,
  element: ElementModel,
  variables: Variables | null,
): boolean {
  // A multi-instance body completes with no variables; its instances applied the mappings.
  const outputs = token.multiInstance === null ? element.outputs : [];
  const propagateAll = element.type !== 'callActivity' || element.calledElement.propagateAllChildVariables;
  const incoming = variables ?? {};
  if (outputs.length === 0 && propagateAll) {
    setVariables(run, token.localScopeId ?? token.scopeId, incoming, token.id);
    return true;
  }
  setLocalVariables(run, run.localScopeOf(token).id, incoming, token.id);
  const context = tokenVariables(run.state, token);
  const retry = { action: 'complete' as const, variables };
  const values = evaluateMappings(run, token, outputs, context, retry);
  if (values === null) return false;
  if (propagateAll && element.type === 'callActivity') setVariables(run, token.scopeId, incoming, token.id);
  setVariables(run, token.scopeId, values, token.id);
  return true;
}

function evaluateMappings(
  run: Run,
  token: TokenState,
  mappings: readonly VariableMapping[],
  context: Variables,
  retry: { action: 'activate' } | { action: 'complete'; variables: Variables | null },
): Variables | null {
  const values: Variables = {};
  for (const mapping of mappings) {
    const result = evaluateMappingValue(mapping.expression, context, expressionScope(run, token));
    if (!result.ok) {
      run.raiseIncident(token, 'expression', `mapping '${mapping.target}': ${result.message}`, retry);
      return null;
    }
    const [name, value] = assignTarget(context, mapping.target, result.value);
    setOwn(context, name, value);
    setOwn(values, name, value);
  }
  return values;
}

/**
 * Evaluates a mapping's value: its expression, or each item of a Camunda `camunda:list` /
 * `camunda:map` in order (the first failure is the result).
 */
export function evaluateMappingValue(
  value: MappingValue,
  variables: Variables,
  scope: ExpressionScope,
): FeelResult {
  if (typeof value === 'string') return evaluateExpression(value, variables, scope);
  if ('list' in value) {
    const items: JsonValue[] = [];
    for (const item of value.list) {
      const result = evaluateMappingValue(item, variables, scope);
      if (!result.ok) return result;
      items.push(result.value);
    }
    return { ok: true, value: items };
  }
  const map: Variables = {};
  for (const entry of value.map) {
    const result = evaluateMappingValue(entry.value, variables, scope);
    if (!result.ok) return result;
    setOwn(map, entry.key, result.value);
  }
  return { ok: true, value: map };
}

/**
 * A target may be a path (`claim.number`, as in Zeebe): the value is set inside a copy of the
 * variable named by the first segment, creating objects on the way. Returns that variable.
 */
export function assignTarget(context: Variables, target: string, value: JsonValue): [string, JsonValue] {
  const [name = target, ...path] = target.split('.');
  if (path.length === 0) return [target, value];
  const existing = context[name];
  const root: Variables = isObject(existing) ? cloneJson(existing) : {};
  let cursor = root;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      setOwn(cursor, key, value);
      return;
    }
    const next = cursor[key];
    const child: Variables = isObject(next) ? next : {};
    setOwn(cursor, key, child);
    cursor = child;
  });
  return [name, root];
}

function isObject(value: JsonValue | undefined): value is Variables {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
