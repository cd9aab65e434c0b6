/**
 * A sandboxed Rhai (https://rhai.rs) interpreter, self-contained (it imports nothing of weft).
 * Scripts see only the values in their scope and the standard packages: no host objects, files,
 * network or timers. Every run is bounded by operations, call depth, data sizes and a wall-clock
 * deadline.
 */
export {
  compileRhai,
  compileRhaiExpression,
  evalRhai,
  isRhaiError,
  runRhai,
  type RhaiProgram,
} from './program.js';
export { RhaiError } from './errors.js';
export { defaultRhaiLimits, type RhaiLimits } from './limits.js';
export type { JsonValue } from './json.js';
export { KEYWORDS, RESERVED } from './words.js';
