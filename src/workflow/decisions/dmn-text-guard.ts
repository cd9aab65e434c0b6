import { forbiddenCharacterReference, unstorableCharacter } from '../../platform/text/unstorable-text.js';

/**
 * Why a DMN document must be refused before the DMN library parses it, or null: NUL and unpaired
 * surrogates, raw or as character references (`&#0;`). XML does not allow them and PostgreSQL cannot
 * store them; the library itself refuses DOCTYPE and ENTITY declarations after this check.
 */
export function unstorableDmnReason(xml: string): string | null {
  const unstorable = unstorableCharacter(xml);
  if (unstorable !== null) return `the DMN document ${unstorable}`;
  return forbiddenCharacterReference(xml);
}
