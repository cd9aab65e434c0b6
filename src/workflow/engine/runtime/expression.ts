import {
  compileJuel,
  evaluateJuel,
  type CompiledJuel,
  type JuelExecution,
  type JuelTask,
} from '../../../lib/juel/index.js';
import { juelSource } from '../model/juel-text.js';
import { evaluateFeel, type FeelResult } from './feel.js';
import { toJsonValue } from './json.js';
import type { Run } from './run.js';
import type { TokenState, Variables } from './types.js';

/** Where an expression runs: the engine call's time and the execution `execution.…` reads in JUEL. */
export interface ExpressionScope {
  now: Date;
  execution?: JuelExecution;
  /** The user task a task listener's expression runs for (`task.…`). */
  task?: JuelTask;
}

/** The scope of an expression evaluated for the element a token is at (or for the instance). */
export function expressionScope(run: Run, at?: Pick<TokenState, 'id' | 'elementId'>): ExpressionScope {
  const instance = run.ctx.instance;
  return {
    now: run.ctx.now,
    execution: {
      id: at?.id ?? instance?.id ?? null,
      processInstanceId: instance?.id ?? null,
      processBusinessKey: instance?.businessKey ?? null,
      processDefinitionId: instance?.definitionId ?? null,
      activityId: at?.elementId ?? null,
    },
  };
}

/**
 * Evaluates a model expression text: FEEL, or JUEL when the model marked it so (Camunda 7 models).
 * Never throws; a JUEL value is turned into JSON as a variable would hold it (a date becomes its
 * ISO 8601 text).
 */
export function evaluateExpression(text: string, variables: Variables, scope: ExpressionScope): FeelResult {
  const source = juelSource(text);
  if (source === null) return evaluateFeel(text, variables);
  const compiled = compiledJuel(source);
  if (!compiled.ok) return { ok: false, message: `cannot evaluate '${source}': ${compiled.message}` };
  const result = evaluateJuel(compiled.expression, {
    variables,
    clock: () => scope.now,
    ...(scope.execution === undefined ? {} : { execution: scope.execution }),
    ...(scope.task === undefined ? {} : { task: scope.task }),
  });
  return result.ok ? { ok: true, value: toJsonValue(result.value) } : result;
}

/** True when a model expression text is JUEL (whose conventions differ from FEEL's in places). */
export function isJuelExpression(text: string): boolean {
  return juelSource(text) !== null;
}

// Deployed models are few and their expressions are fixed, so compiled JUEL is kept by source text;
// the bound only guards against a process that keeps deploying new texts.
const compiledTexts = new Map<string, ReturnType<typeof compileJuel>>();
const MAX_COMPILED = 5_000;

function compiledJuel(
  source: string,
): { ok: true; expression: CompiledJuel } | { ok: false; message: string } {
  let compiled = compiledTexts.get(source);
  if (compiled === undefined) {
    compiled = compileJuel(source);
    if (compiledTexts.size >= MAX_COMPILED) compiledTexts.clear();
    compiledTexts.set(source, compiled);
  }
  return compiled;
}
