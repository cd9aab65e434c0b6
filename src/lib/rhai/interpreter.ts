import type { CompiledScript } from './compiler.js';
import { compileScript, unboundSlot } from './compiler.js';
import { RhaiError } from './errors.js';
import type { ResolvedLimits } from './limits.js';
import type { ParseMode } from './parser.js';
import { parseScript } from './parser.js';
import type { Slot } from './evaluation-context.js';
import { EvaluationContext, Frame } from './evaluation-context.js';
import { readSlot } from './runtime.js';
import './stdlib/index.js';
import type { RhaiValue } from './values.js';

/** Parses and compiles a script (parse errors are `RhaiError`s of kind `ErrorParsing`). */
export function compileSource(
  source: string,
  limits: ResolvedLimits,
  mode: ParseMode = 'script',
): CompiledScript {
  return compileScript(parseScript(source, limits, mode));
}

/** Result of one run in Rhai values: the script's value and every top-level variable. */
export interface RawRunResult {
  value: RhaiValue;
  scope: Map<string, RhaiValue>;
}

/** Runs a compiled script against a scope of Rhai values. */
export function execute(
  script: CompiledScript,
  scope: ReadonlyMap<string, RhaiValue>,
  limits: ResolvedLimits,
): RawRunResult {
  const externals = new Map<string, Slot>(scope);
  const context = new EvaluationContext(limits, script.functions, externals);
  const slots = new Array<Slot>(script.slotCount).fill(unboundSlot);
  let value: RhaiValue;
  try {
    value = script.body(new Frame(context, slots, undefined, undefined));
  } catch (e) {
    if (e instanceof RangeError) throw new RhaiError('ErrorStackOverflow', 'Stack overflow');
    throw e;
  }
  if (context.control === 'return') value = context.controlValue;
  context.control = 'none';
  const out = new Map<string, RhaiValue>();
  for (const [k, v] of externals) out.set(k, readSlot(v));
  for (const { name, slot } of script.topVars) {
    const v = slots[slot];
    if (v !== unboundSlot) out.set(name, readSlot(v));
  }
  return { value, scope: out };
}
