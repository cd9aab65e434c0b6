/**
 * A layer over feelin, self-contained (it imports nothing of weft but src/lib): RE2 regular
 * expressions, builtins and operators where feelin departs from DMN 1.5, bounded evaluation, range
 * iteration and its limit, and the process-wide limits the service sets once.
 */
export { runBounded, FeelTimeoutError } from './bounded-evaluation.js';
export { builtinOverrides, feelVariables } from './feel-context.js';
export { rewriteArithmetic } from './arithmetic-rewrite.js';
export { mayRunLong, textMayRunLong, type FeelTree } from './feel-cost.js';
export { defaultFeelLimits, feelLimits, setFeelLimits, type FeelLimits } from './feel-limits.js';
export { FeelListTooLongError, installRangeLimit } from './range-limit.js';
export { MAX_REPLACE_RESULT_LENGTH, regexFunctions } from './regex-functions.js';
