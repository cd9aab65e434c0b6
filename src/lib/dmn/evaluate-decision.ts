import { toFeel } from 'feelin';
import { runBounded } from '../feel/index.js';
import type { CompiledDmn } from './compile-dmn.js';
import { DmnEvaluationError } from './errors.js';
import type { Scope } from './feel-expression.js';
import { isPlainObject } from './item-types.js';
import type { DecisionResult, EvaluateOptions, MatchedRule } from './types.js';

/**
 * Evaluates a decision (by id or name) of a compiled model with the given variables: input data by name,
 * plus any other variables the expressions read. Returns the result, the same result as a list of
 * entries (output name → value, as Camunda's decision result: see DecisionResult.resultList) and the
 * rules that matched in every decision table evaluated on the way. Throws DmnEvaluationError naming the
 * decision and rule.
 */
export function evaluateDecision(
  compiled: CompiledDmn,
  decisionIdOrName: string,
  variables: Record<string, unknown>,
  options: EvaluateOptions = {},
): DecisionResult {
  const decision = compiled.graph.findDecision(decisionIdOrName);
  if (decision === null) {
    throw new DmnEvaluationError(
      { decisionId: null, decisionName: decisionIdOrName },
      `no decision with id or name '${decisionIdOrName}'`,
    );
  }
  const matchedRules: MatchedRule[] = [];
  const run = { strict: options.strict ?? true, matched: matchedRules };
  const evaluation = compiled.graph.start(toFeelScope(variables), run);
  const result = guard(decision.id, decision.name, () =>
    within(compiled, () => compiled.graph.decide(decision.id, evaluation)),
  );
  const resultList = evaluation.tableEntries.get(decision.id) ?? [
    { [decision.variableName ?? decision.name]: result },
  ];
  return { result, resultList, matchedRules };
}

/**
 * Invokes a decision service (by id or name) with its input data and input decisions given by name;
 * returns the value of each output decision by name.
 */
export function evaluateDecisionService(
  compiled: CompiledDmn,
  serviceIdOrName: string,
  variables: Record<string, unknown>,
  options: EvaluateOptions = {},
): { result: Record<string, unknown>; matchedRules: MatchedRule[] } {
  const service = compiled.graph.findService(serviceIdOrName);
  if (service === null) {
    throw new DmnEvaluationError(
      { decisionId: null, decisionName: serviceIdOrName },
      `no decision service with id or name '${serviceIdOrName}'`,
    );
  }
  const matchedRules: MatchedRule[] = [];
  const run = { strict: options.strict ?? true, matched: matchedRules };
  const result = guard(service.id, service.name, () =>
    within(compiled, () => compiled.graph.invokeService(service, toFeelScope(variables), run)),
  );
  return { result, matchedRules };
}

// A model whose expressions can loop runs within the FEEL time budget; the others skip its cost.
function within<T>(compiled: CompiledDmn, body: () => T): T {
  return compiled.bounded ? runBounded(body) : body();
}

// Anything thrown below that is not already a DmnEvaluationError (a bug, a stack overflow from deep
// recursion) still reaches the caller as one, naming the decision.
function guard<T>(id: string, name: string, body: () => T): T {
  try {
    return body();
  } catch (err) {
    if (err instanceof DmnEvaluationError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new DmnEvaluationError({ decisionId: id, decisionName: name }, `evaluation failed: ${detail}`);
  }
}

/** Converts caller values to FEEL values: JS Dates and Temporal values become FEEL dates and times, deeply. */
export function toFeelScope(variables: Record<string, unknown>): Scope {
  const scope: Scope = {};
  for (const [name, value] of Object.entries(variables)) scope[name] = toFeelValue(value);
  return scope;
}

function toFeelValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(toFeelValue);
  if (isPlainObject(value)) return toFeelScope(value);
  return toFeel(value);
}
