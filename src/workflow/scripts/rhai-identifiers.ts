import { KEYWORDS, RESERVED } from '../../lib/rhai/index.js';
// Keyword functions of Rhai: with the keywords and reserved words, a variable with one of these
// names cannot be referred to from a script, so it is not put in the scope.
const keywordFunctions = [
  'true',
  'false',
  'Fn',
  'call',
  'curry',
  'type_of',
  'print',
  'debug',
  'eval',
  'is_def_var',
  'is_def_fn',
  'is_shared',
  'this',
  '_',
];
const notVariableNames = new Set([...KEYWORDS, ...RESERVED, ...keywordFunctions]);

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` can be a Rhai variable, so a process variable of that name is put in the scope. */
export function isRhaiVariableName(name: string): boolean {
  return identifier.test(name) && !notVariableNames.has(name);
}
