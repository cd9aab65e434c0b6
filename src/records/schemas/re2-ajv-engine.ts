import type { CodeOptions } from 'ajv';
import { compileRe2, Re2PatternError } from '../../lib/re2/re2-pattern.js';

/**
 * Ajv's `code.regExp`: schema `pattern`s are matched by RE2 (linear time, so a pattern such as
 * `^(a+)+$` cannot stall a records request). A schema is applied only if RE2 compiles its patterns
 * (validate-definition.ts); a stored pattern RE2 refuses (written before RE2) never matches, so the
 * field is refused rather than checked by a backtracking engine.
 */
export const re2AjvEngine: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string) => {
    let test: (s: string) => boolean;
    try {
      const re = compileRe2(pattern);
      test = (s) => re.test(s);
    } catch (error) {
      if (!(error instanceof Re2PatternError)) throw error;
      test = () => false;
    }
    // Ajv shares compiled patterns by this text.
    return { test, toString: () => `re2:${pattern}` };
  },
  { code: 're2AjvEngine' },
);
