/** The interpreter's entry points: compile a script or expression, run it over a JSON scope. */
import type { CompiledScript } from './compiler.js';
import { RhaiError } from './errors.js';
import { compileSource, execute } from './interpreter.js';
import type { JsonValue } from './json.js';
import { fromJson, setOwnKey, toJson } from './json.js';
import type { RhaiLimits, ResolvedLimits } from './limits.js';
import { resolveLimits } from './limits.js';
import type { RhaiValue } from './values.js';

/** A compiled script; reusable across runs and safe to cache by source. */
export interface RhaiProgram {
  readonly source: string;
  /** Limits in force when it was compiled (the defaults for runs that pass none). */
  readonly limits: Partial<RhaiLimits>;
  /** @internal */
  readonly compiled: CompiledScript;
}

/** Compiles a script; throws `RhaiError` (kind `ErrorParsing`) on syntax errors and disabled symbols. */
export function compileRhai(source: string, limits: Partial<RhaiLimits> = {}): RhaiProgram {
  return { source, limits, compiled: compileSource(source, resolveLimits(limits)) };
}

/** Compiles a single expression (no statements), like Rhai's `compile_expression`. */
export function compileRhaiExpression(source: string, limits: Partial<RhaiLimits> = {}): RhaiProgram {
  return { source, limits, compiled: compileSource(source, resolveLimits(limits), 'expression') };
}

/**
 * Runs a program with the given variables. Returns the script's value and the scope after the
 * run: every input variable (possibly changed) and every variable declared at the top level.
 * INTs beyond ±2^53 come back as decimal strings. Throws `RhaiError` on runtime errors.
 */
export function runRhai(
  program: RhaiProgram,
  scope: Record<string, JsonValue>,
  limits?: Partial<RhaiLimits>,
): { value: JsonValue; scope: Record<string, JsonValue> } {
  const input = new Map<string, RhaiValue>();
  for (const k of Object.keys(scope)) input.set(k, fromJson(scope[k]!));
  const resolved: ResolvedLimits = resolveLimits(limits ?? program.limits);
  const result = execute(program.compiled, input, resolved);
  try {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of result.scope) setOwnKey(out, k, toJson(v));
    return { value: toJson(result.value), scope: out };
  } catch (e) {
    if (e instanceof RangeError)
      throw new RhaiError('ErrorDataTooLarge', 'Result nested too deeply for JSON');
    throw e;
  }
}

/** Compiles and runs in one go (no caching). */
export function evalRhai(
  source: string,
  scope: Record<string, JsonValue> = {},
  limits: Partial<RhaiLimits> = {},
): { value: JsonValue; scope: Record<string, JsonValue> } {
  return runRhai(compileRhai(source, limits), scope, limits);
}

/** True when `e` is a Rhai error (a type guard usable without importing the class). */
export function isRhaiError(e: unknown): e is RhaiError {
  return e instanceof Error && e.name === 'RhaiError';
}
