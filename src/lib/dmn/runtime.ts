import type { Warning } from 'feelin';
import { DmnEvaluationError } from './errors.js';
import type { CompiledExpression, Scope } from './feel-expression.js';
import type { TypeChecker } from './item-types.js';
import type { MatchedRule } from './types.js';

/** One evaluation in progress: its error mode and the rules matched so far. */
export interface Run {
  strict: boolean;
  matched: MatchedRule[];
}

/** The decision (or BKM) an expression belongs to, for error messages and audit. */
export interface Owner {
  id: string;
  name: string;
}

/** A compiled boxed expression. */
export type Evaluator = (vars: Scope, run: Run) => unknown;

/** What compiling a boxed expression needs: its owner, the names in scope and the type checker. */
export interface CompileEnv {
  owner: Owner;
  scope: readonly string[];
  types: TypeChecker;
}

/** Where in a decision an expression sits, for error messages. */
export interface Site {
  ruleId?: string | null;
  ruleIndex?: number | null;
  elementId?: string | null;
}

/** Builds a DmnEvaluationError located at the owner and site. */
export function evaluationError(owner: Owner, site: Site, detail: string): DmnEvaluationError {
  return new DmnEvaluationError({ decisionId: owner.id, decisionName: owner.name, ...site }, detail);
}

/**
 * Evaluates a compiled FEEL expression. In strict mode a null value that came with feelin warnings is a
 * failure and throws; otherwise (the DMN specification's semantics) it stays null.
 */
export function runFeel(
  compiled: CompiledExpression,
  vars: Scope,
  run: Run,
  owner: Owner,
  site: Site,
  what: string,
): unknown {
  const { value, warnings } = compiled.evaluate(vars);
  if (run.strict && value === null && warnings.length > 0) {
    throw evaluationError(owner, site, `${what} '${compiled.text}' failed: ${describe(warnings)}`);
  }
  return value;
}

function describe(warnings: Warning[]): string {
  return warnings
    .slice(0, 2)
    .map((w) => w.message)
    .join('; ');
}

/** Applies a typeRef: the conforming value, or null (spec mode) / an error (strict mode) if it does not conform. */
export function applyType(
  value: unknown,
  typeRef: string | null,
  env: CompileEnv,
  run: Run,
  site: Site,
  what: string,
): unknown {
  const result = env.types.conform(value, typeRef);
  if (result.ok) return result.value;
  if (run.strict) throw evaluationError(env.owner, site, `${what} does not conform to type '${typeRef}'`);
  return null;
}
