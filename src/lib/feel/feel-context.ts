import { regexFunctions } from './regex-functions.js';
import { installRangeLimit } from './range-limit.js';

installRangeLimit();

const REGEX_NAMES = /matches|replace|split/;

/**
 * The variables to evaluate `text` with: when the text can call `matches`, `replace` or `split`, the
 * RE2-backed versions are added (feelin looks a called name up in the variables before its builtins),
 * and a variable of the same name still wins, as it would over the builtin. Importing this module also
 * caps range iteration (installRangeLimit).
 */
export function feelVariables<T extends Record<string, unknown>>(text: string, variables: T): T {
  if (!REGEX_NAMES.test(text)) return variables;
  return { ...regexFunctions, ...variables };
}
