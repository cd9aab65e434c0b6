import type { FeelFunction } from 'feelin';
import { regexFunctions } from './regex-functions.js';
import { installRangeLimit } from './range-limit.js';
import { temporalFunctions } from './temporal-functions.js';
import { numberFunctions } from './number-functions.js';
import { listFunctions } from './list-functions.js';
import { arithmeticFunctions } from './duration-arithmetic.js';
import { unaryValueFunctions } from './unary-value.js';

installRangeLimit();

/**
 * The builtins we provide instead of feelin's, by FEEL name: RE2 regular expressions, the functions
 * where feelin departs from DMN 1.5 (temporal constructors, rounding scales, list replace), and the
 * operator and unary-test functions a text is rewritten into (rewriteArithmetic).
 */
export const builtinOverrides: Readonly<Record<string, FeelFunction>> = {
  ...regexFunctions,
  ...temporalFunctions,
  ...numberFunctions,
  ...listFunctions,
  ...arithmeticFunctions,
  ...unaryValueFunctions,
};

// A text that can use one of our builtins (a regex function named anywhere, so that it cannot reach
// feelin's backtracking one as a value either; another overridden name only when called: with `time`
// among the variables, feelin's parser no longer reads the type `days and time duration`).
const USES_OVERRIDE = new RegExp(
  `\\b(${Object.keys(regexFunctions).join('|')})\\b|\\b(${Object.keys(builtinOverrides)
    .map((n) => n.replace(/ /g, '\\s+'))
    .join('|')})\\s*\\(`,
);

/**
 * The variables to evaluate `text` with: when the text can call a builtin we override, our versions
 * are added (feelin looks a called name up in the variables before its builtins), and a variable of
 * the same name still wins, as it would over the builtin. Importing this module also caps range
 * iteration (installRangeLimit).
 */
export function feelVariables<T extends Record<string, unknown>>(text: string, variables: T): T {
  if (!USES_OVERRIDE.test(text)) return variables;
  return { ...builtinOverrides, ...variables };
}
