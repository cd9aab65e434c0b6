import type { Environment } from '../cel-engine/index.js';
import { registerBlock } from './block.js';
import { registerMathExtensions } from './math-extensions.js';
import { registerOptionalEntries } from './optional-entries.js';
import { registerOptionalExtensions } from './optional-extensions.js';
import { registerStringExtensions } from './string-extensions.js';
import { registerTimeConversions } from './time-conversions.js';
import { registerTwoVariableComprehensions } from './two-variable-comprehensions.js';

/** Adds to a cel-js environment the CEL extensions and corrections weft supports (docs/records/access-control.md). */
export function registerCelExtensions(env: Environment): Environment {
  for (const register of [
    registerStringExtensions,
    registerMathExtensions,
    registerTwoVariableComprehensions,
    registerOptionalExtensions,
    registerTimeConversions,
    registerBlock,
    registerOptionalEntries,
  ])
    register(env);
  return env;
}

export { withBlockReferences } from './block.js';
export { withPlainSyntax } from './syntax-sugar.js';
export { withOptionalEntries } from './optional-entries.js';
export { formatString } from './string-format.js';
export { quoteString } from './string-extensions.js';
