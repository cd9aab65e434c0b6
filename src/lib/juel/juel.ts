/** The entry points: recognise, compile and evaluate JUEL texts; list the variables they read. */
import type { JuelNode, JuelPart } from './ast.js';
import type { JuelContext } from './context.js';
import { JuelError } from './errors.js';
import { BUILT_IN_IDENTIFIERS, evaluateParts } from './evaluator.js';
import type { JuelLimits } from './limits.js';
import { defaultJuelLimits } from './limits.js';
import { findExpressionStart, parseText } from './parser.js';
import { toResult } from './values.js';

/** A compiled text; immutable, reusable across evaluations and safe to cache by text. */
export interface CompiledJuel {
  readonly text: string;
  /** True when the text holds no expression (it evaluates to itself, escapes undone). */
  readonly isLiteral: boolean;
  /** True when the text is exactly one `${…}`, whose value keeps its type. */
  readonly isSingleExpression: boolean;
  /** @internal The literal parts and parsed expressions. */
  readonly parts: readonly JuelPart[];
  /** @internal */
  readonly limits: Readonly<JuelLimits>;
}

/** The outcome of compileJuel: the compiled text, or why it does not compile and where (0-based). */
export type JuelCompileResult =
  | { readonly ok: true; readonly expression: CompiledJuel }
  | { readonly ok: false; readonly message: string; readonly position: number };

/** The outcome of evaluateJuel. */
export type JuelEvaluationResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** True when the text holds an expression: an unescaped `${` or `#{`. */
export function isJuelText(text: string): boolean {
  return findExpressionStart(text, 0) >= 0;
}

/**
 * Parses a text (literal text and `${…}`/`#{…}` expressions), refusing any method outside the
 * allow-list, any unknown function, texts longer than `maxTextLength` and nesting deeper than
 * `maxDepth`. Never throws.
 */
export function compileJuel(text: string, limits: Partial<JuelLimits> = {}): JuelCompileResult {
  const resolved: JuelLimits = Object.freeze({ ...defaultJuelLimits, ...limits });
  if (text.length > resolved.maxTextLength) {
    return {
      ok: false,
      message: `The expression is longer than ${resolved.maxTextLength} characters`,
      position: 0,
    };
  }
  try {
    const parts = parseText(text, resolved);
    const expression: CompiledJuel = Object.freeze({
      text,
      isLiteral: parts.every((p) => typeof p === 'string'),
      isSingleExpression: parts.length === 1 && typeof parts[0] !== 'string',
      parts: Object.freeze(parts),
      limits: resolved,
    });
    return { ok: true, expression };
  } catch (error) {
    if (error instanceof JuelError) {
      const position = Math.max(0, error.position);
      return { ok: false, message: `${error.message} (at position ${position} of ${quote(text)})`, position };
    }
    if (error instanceof RangeError)
      return { ok: false, message: 'The expression is nested too deeply', position: 0 };
    throw error;
  }
}

/**
 * Evaluates a compiled text. A text that is exactly one expression gives that expression's value:
 * null, boolean, number (Longs and Doubles alike), string, array, object or Date (`dateTime()`
 * values become Dates); any other text gives a string. Never throws: coercion errors, unknown
 * variables, refused calls and a host callback's exception come back as `{ ok: false }`.
 */
export function evaluateJuel(expression: CompiledJuel, context: JuelContext): JuelEvaluationResult {
  try {
    const value = evaluateParts(expression.parts, expression.text, {
      context,
      maxStringLength: expression.limits.maxStringLength,
    });
    return { ok: true, value: toResult(value) };
  } catch (error) {
    if (error instanceof JuelError) {
      const where =
        error.position >= 0 ? ` (at position ${error.position} of ${quote(expression.text)})` : '';
      return { ok: false, message: `${error.message}${where}` };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `Evaluation of ${quote(expression.text)} failed: ${message}` };
  }
}

/**
 * The variable names an expression reads: its free identifiers (not `execution`, `task`,
 * `authenticatedUserId`) and the string-literal names given to `getVariable`, `getVariableLocal`,
 * `hasVariable` and `hasVariableLocal`. In order of first appearance.
 */
export function juelVariableNames(expression: CompiledJuel): string[] {
  const names = new Set<string>();
  const visit = (node: JuelNode): void => {
    switch (node.kind) {
      case 'identifier':
        if (!BUILT_IN_IDENTIFIERS.includes(node.name)) names.add(node.name);
        return;
      case 'literal':
        return;
      case 'access':
        visit(node.base);
        visit(node.key);
        return;
      case 'method': {
        visit(node.base);
        const first = node.args[0];
        if (VARIABLE_READERS.has(node.name) && first?.kind === 'literal' && typeof first.value === 'string') {
          names.add(first.value);
        }
        node.args.forEach(visit);
        return;
      }
      case 'function':
        node.args.forEach(visit);
        return;
      case 'unary':
        visit(node.operand);
        return;
      case 'binary':
        visit(node.left);
        visit(node.right);
        return;
      case 'conditional':
        visit(node.test);
        visit(node.then);
        visit(node.otherwise);
        return;
    }
  };
  for (const part of expression.parts) if (typeof part !== 'string') visit(part.node);
  return [...names];
}

const VARIABLE_READERS = new Set(['getVariable', 'getVariableLocal', 'hasVariable', 'hasVariableLocal']);

function quote(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
