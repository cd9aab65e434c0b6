/**
 * How the model stores a Camunda 7 JUEL expression (docs/workflow/juel.md): its source text behind
 * a `juel:` mark. Every other expression text in the model is FEEL, and no FEEL text can start with
 * `juel:` (a name followed by a colon does not parse), so the mark tells the two apart without a
 * second field beside each expression, and the model stays plain JSON.
 */
const JUEL_MARK = 'juel:';

/** The model text of a JUEL expression written as `source` (`${…}`, `#{…}` or text around them). */
export function markJuel(source: string): string {
  return `${JUEL_MARK}${source}`;
}

/** The JUEL source of a model expression text, or null when the text is FEEL. */
export function juelSource(modelText: string): string | null {
  return modelText.startsWith(JUEL_MARK) ? modelText.slice(JUEL_MARK.length) : null;
}
