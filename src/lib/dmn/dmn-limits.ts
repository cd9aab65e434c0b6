import type { DmnProblem } from './types.js';

/**
 * What one DMN file may contain at deploy. Deploying parses every FEEL text of the file while the
 * request waits, so its size in elements and texts is what bounds that time; files already stored
 * are compiled without these limits.
 */
export interface DmnLimits {
  /** DRG elements: decisions, input data, business knowledge models, decision services. */
  readonly maxElements: number;
  /** FEEL texts: literal expressions, input expressions and entries, output entries, allowed values. */
  readonly maxExpressions: number;
  /** Characters of one FEEL text. */
  readonly maxExpressionLength: number;
}

/** The limits when the configuration sets none. */
export const defaultDmnLimits: DmnLimits = Object.freeze({
  maxElements: 2000,
  maxExpressions: 50_000,
  maxExpressionLength: 10_000,
});

const DRG_ELEMENT = /<(?:[\w.-]+:)?(?:decision|inputData|businessKnowledgeModel|decisionService)[\s/>]/g;
const TEXT_ELEMENT = /<(?:[\w.-]+:)?text[\s/>]/g;

/**
 * Problems for a document over the element or text limits, found by counting start tags in the XML
 * (an upper bound: a tag inside a comment counts too) before any parsing, so that an oversized file
 * is refused in time linear in its length.
 */
export function dmnSizeProblems(xml: string, limits: DmnLimits): DmnProblem[] {
  const problems: DmnProblem[] = [];
  const elements = count(xml, DRG_ELEMENT);
  if (elements > limits.maxElements) {
    problems.push({
      elementId: null,
      message: `the file has ${elements} DRG elements (decisions, input data, business knowledge models, decision services); at most ${limits.maxElements} are allowed (WORKFLOW_DMN_MAX_ELEMENTS)`,
    });
  }
  const texts = count(xml, TEXT_ELEMENT);
  if (texts > limits.maxExpressions) {
    problems.push({
      elementId: null,
      message: `the file has ${texts} FEEL texts; at most ${limits.maxExpressions} are allowed (WORKFLOW_DMN_MAX_EXPRESSIONS)`,
    });
  }
  return problems;
}

/** The problem of a FEEL text longer than the limit, or null. */
export function expressionLengthProblem(
  text: string,
  limits: DmnLimits,
  elementId: string,
  what: string,
): DmnProblem | null {
  if (text.length <= limits.maxExpressionLength) return null;
  return {
    elementId,
    message: `${what} has ${text.length} characters; at most ${limits.maxExpressionLength} are allowed (WORKFLOW_FEEL_MAX_EXPRESSION_LENGTH)`,
  };
}

function count(text: string, pattern: RegExp): number {
  let n = 0;
  pattern.lastIndex = 0;
  while (pattern.exec(text) !== null) n++;
  return n;
}
