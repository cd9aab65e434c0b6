/** Bounds of one compilation and evaluation; every expression's work is linear in these. */
export interface JuelLimits {
  /** Characters in an expression's text; a longer text does not compile. */
  maxTextLength: number;
  /** Nesting of the expression tree (parentheses, operators, calls); a deeper one does not compile. */
  maxDepth: number;
  /** Characters in any string an evaluation builds (composite text, concat, replace, toString). */
  maxStringLength: number;
}

/** The defaults: far above any expression a model holds, far below what could hurt the engine. */
export const defaultJuelLimits: Readonly<JuelLimits> = Object.freeze({
  maxTextLength: 20_000,
  maxDepth: 100,
  maxStringLength: 1_000_000,
});
