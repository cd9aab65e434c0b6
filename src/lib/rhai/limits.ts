/** Sandbox limits of one compilation or run. A value of 0 means "unlimited" (Rhai's convention). */
export interface RhaiLimits {
  /** Evaluated nodes (statements, expressions, calls, loop iterations) per run. */
  maxOperations: number;
  /** Nesting depth of function calls. */
  maxCallLevels: number;
  /** Expression/statement nesting depth, checked when parsing. */
  maxExprDepth: number;
  /** The same inside function bodies; defaults to half of `maxExprDepth`. */
  maxFunctionExprDepth?: number;
  /** Keywords, operators and functions that are a parse error; `eval` is always disabled. */
  disabledSymbols: readonly string[];
  /** Characters in one string. */
  maxStringSize: number;
  /** Elements in one array (nested arrays count towards the total). */
  maxArraySize: number;
  /** Entries in one object map (nested maps count towards the total). */
  maxMapSize: number;
  /** Variables alive at once in one scope (a function's parameters count); optional, unlimited. */
  maxVariables?: number;
  /** Wall-clock deadline of one run, checked every few hundred operations. */
  timeoutMs: number;
}

/** The service's defaults (spec's Limits table). */
export const defaultRhaiLimits: RhaiLimits = Object.freeze({
  maxOperations: 100_000,
  maxCallLevels: 20,
  maxExprDepth: 64,
  maxFunctionExprDepth: 32,
  disabledSymbols: Object.freeze(['eval', 'print', 'debug']),
  maxStringSize: 1_000_000,
  maxArraySize: 100_000,
  maxMapSize: 100_000,
  timeoutMs: 1_000,
});

/** Limits with every field filled in and 0 turned into "unlimited" (Infinity). */
export interface ResolvedLimits {
  maxOperations: number;
  maxCallLevels: number;
  maxExprDepth: number;
  maxFunctionExprDepth: number;
  disabled: ReadonlySet<string>;
  maxStringSize: number;
  maxArraySize: number;
  maxMapSize: number;
  maxVariables: number;
  timeoutMs: number;
}

const unlimited = (n: number): number => (n > 0 ? n : Infinity);

/** Fills `partial` from the defaults and normalises it for the interpreter. */
export function resolveLimits(partial: Partial<RhaiLimits> = {}): ResolvedLimits {
  const l = { ...defaultRhaiLimits, ...partial };
  const exprDepth = unlimited(l.maxExprDepth);
  const fnDepth =
    partial.maxFunctionExprDepth !== undefined || partial.maxExprDepth === undefined
      ? unlimited(l.maxFunctionExprDepth ?? Math.floor(l.maxExprDepth / 2))
      : unlimited(Math.floor(l.maxExprDepth / 2));
  const disabled = new Set(l.disabledSymbols);
  disabled.add('eval');
  return {
    maxOperations: unlimited(l.maxOperations),
    maxCallLevels: unlimited(l.maxCallLevels),
    maxExprDepth: exprDepth,
    maxFunctionExprDepth: fnDepth,
    disabled,
    maxStringSize: unlimited(l.maxStringSize),
    maxArraySize: unlimited(l.maxArraySize),
    maxMapSize: unlimited(l.maxMapSize),
    maxVariables: unlimited(l.maxVariables ?? 0),
    timeoutMs: unlimited(l.timeoutMs),
  };
}
