import { evaluate, isFunction, type Warning } from 'feelin';
import { feelVariables, rewriteArithmetic } from '../feel/index.js';
import { analyzeFeel, parseContextOf } from './feel-analysis.js';

/** Variables visible to an expression, by name. */
export type Scope = Record<string, unknown>;

/** What evaluating a FEEL expression gave; feelin reports failures as warnings and a null value. */
export interface FeelOutcome {
  value: unknown;
  warnings: Warning[];
}

/** A FEEL expression compiled once, evaluated many times. */
export interface CompiledExpression {
  readonly text: string;
  /** Whether the fast compiled form is used (false: feelin parses the text on each call). */
  readonly precompiled: boolean;
  evaluate(scope: Scope): FeelOutcome;
}

interface FeelFunctionLike {
  fn: (...args: unknown[]) => unknown;
  parameterNames: string[];
}

/**
 * Compiles a FEEL expression. feelin exposes no reusable compiled form, but a FEEL function value is one:
 * `function(a, b) <text>` is parsed once and its body closure runs on every call. The parameters are the
 * names in scope the text may mention plus every variable name it reads, bound per call from the scope
 * (undefined when absent, which feelin treats as a missing variable, like `evaluate`). feelin's warnings for the call are
 * taken from the definition's warnings array and cut back afterwards. If the wrapped form does not parse
 * the same way, the text is evaluated by feelin on each call instead.
 */
export function compileExpression(text: string, scope: readonly string[]): CompiledExpression {
  const literal = literalValue(text);
  if (literal !== NOT_LITERAL) {
    return { text, precompiled: true, evaluate: () => ({ value: literal, warnings: [] }) };
  }
  const simpleName = /^[A-Za-z_][A-Za-z0-9_]*$/.test(text.trim()) ? text.trim() : null;
  // `*`, `/` and unary `-` become calls of our operators, which take durations as FEEL does.
  const source = rewriteArithmetic(text, scope);
  const wrapped = wrap(source, scope);
  if (wrapped === null) {
    return { text, precompiled: false, evaluate: (vars) => evaluateSlow(text, vars) };
  }
  const { fn, params, warnings } = wrapped;
  // A parameter named like a function we provide (`matches`) defaults to ours, not feelin's builtin.
  const defaults: Scope = feelVariables(source, {});
  const run = (vars: Scope): FeelOutcome => {
    const args = params.map((p) => (Object.hasOwn(vars, p) ? vars[p] : defaults[p]));
    const start = warnings.length;
    try {
      const value = fn.fn(...args);
      const raised = warnings.slice(start);
      return { value: value === undefined ? null : value, warnings: raised };
    } catch (err) {
      return { value: null, warnings: [failure(err)] };
    } finally {
      warnings.length = start;
    }
  };
  if (simpleName !== null && !RESERVED.has(simpleName)) {
    return {
      text,
      precompiled: true,
      evaluate: (vars) =>
        Object.hasOwn(vars, simpleName) && vars[simpleName] !== undefined
          ? { value: vars[simpleName], warnings: [] }
          : run(vars),
    };
  }
  return { text, precompiled: true, evaluate: run };
}

const RESERVED = new Set(['true', 'false', 'null', 'function', 'for', 'if', 'some', 'every']);
const NOT_LITERAL = Symbol('not a literal');

/** The value of a plain number, string (no escapes), boolean or null literal, else NOT_LITERAL. */
function literalValue(text: string): unknown {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^"[^"\\]*"$/.test(t)) return t.slice(1, -1);
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  return NOT_LITERAL;
}

function wrap(
  text: string,
  scope: readonly string[],
): { fn: FeelFunctionLike; params: string[]; warnings: Warning[] } | null {
  const analysis = analyzeFeel(text, 'expression', scope);
  if (analysis.syntaxError !== null) return null;
  // Names of the scope the text cannot mention need no parameter: the same function, fewer to bind.
  const params = [...new Set([...analysis.mentioned, ...analysis.names])];
  try {
    const result = evaluate(
      `function(${params.join(', ')}) ${text}`,
      feelVariables(text, parseContextOf(params)),
    );
    const fn = result.value;
    if (!isFunction(fn) || result.warnings.length > 0) return null;
    const named = fn as unknown as FeelFunctionLike;
    if (
      named.parameterNames.length !== params.length ||
      named.parameterNames.some((p, i) => p !== params[i])
    ) {
      return null;
    }
    return { fn: named, params, warnings: result.warnings };
  } catch {
    return null;
  }
}

/** Evaluates a FEEL text with feelin (and our layer), turning a thrown syntax error into a warning. */
export function evaluateSlow(text: string, vars: Scope): FeelOutcome {
  try {
    const source = rewriteArithmetic(text, Object.keys(vars));
    const { value, warnings } = evaluate(source, feelVariables(source, vars));
    return { value: value === undefined ? null : value, warnings };
  } catch (err) {
    return { value: null, warnings: [failure(err)] };
  }
}

function failure(err: unknown): Warning {
  const message = err instanceof Error ? err.message : String(err);
  return {
    type: 'FUNCTION_INVOCATION_FAILURE',
    message,
    position: { from: 0, to: 0 },
    details: { template: message, values: {} },
  };
}
