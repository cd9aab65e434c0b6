import type { CompiledScript } from './compiler.js';
import { compileScript, UNBOUND } from './compiler.js';
import { RhaiError } from './errors.js';
import type { ResolvedLimits } from './limits.js';
import type { ParseMode } from './parser.js';
import { parseScript } from './parser.js';
import type { Slot } from './runtime.js';
import { Ctx, CTL_NONE, CTL_RETURN, Frame, readSlot } from './runtime.js';
import './stdlib/index.js';
import type { RValue } from './values.js';

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
  value: RValue;
  scope: Map<string, RValue>;
}

/** Runs a compiled script against a scope of Rhai values. */
export function execute(
  script: CompiledScript,
  scope: ReadonlyMap<string, RValue>,
  limits: ResolvedLimits,
): RawRunResult {
  const externals = new Map<string, Slot>(scope);
  const ctx = new Ctx(limits, script.fns, externals);
  const slots = new Array<Slot>(script.nslots).fill(UNBOUND);
  let value: RValue;
  try {
    value = script.body(new Frame(ctx, slots, undefined, undefined));
  } catch (e) {
    if (e instanceof RangeError) throw new RhaiError('ErrorStackOverflow', 'Stack overflow');
    throw e;
  }
  if (ctx.ctl === CTL_RETURN) value = ctx.ctlValue;
  ctx.ctl = CTL_NONE;
  const out = new Map<string, RValue>();
  for (const [k, v] of externals) out.set(k, readSlot(v));
  for (const { name, slot } of script.topVars) {
    const v = slots[slot];
    if (v !== UNBOUND) out.set(name, readSlot(v));
  }
  return { value, scope: out };
}
