import type { DmnProblem } from './types.js';

/** Thrown by compileDmn when a model has problems; carries every problem found. */
export class DmnValidationError extends Error {
  readonly problems: DmnProblem[];

  constructor(problems: DmnProblem[]) {
    const first = problems
      .slice(0, 3)
      .map((p) => (p.elementId ? `${p.elementId}: ${p.message}` : p.message))
      .join('; ');
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
    super(`DMN model has ${problems.length} problem(s): ${first}${more}`);
    this.name = 'DmnValidationError';
    this.problems = problems;
  }
}

/** Where an evaluation error happened: the decision, and the rule or element when known. */
export interface DmnErrorLocation {
  decisionId: string | null;
  decisionName: string | null;
  ruleId?: string | null;
  ruleIndex?: number | null;
  elementId?: string | null;
}

/** Thrown when a decision cannot be evaluated; the message names the decision and rule. */
export class DmnEvaluationError extends Error {
  readonly decisionId: string | null;
  readonly decisionName: string | null;
  readonly ruleId: string | null;
  readonly ruleIndex: number | null;
  readonly elementId: string | null;

  constructor(location: DmnErrorLocation, detail: string) {
    const where: string[] = [];
    if (location.decisionName !== null || location.decisionId !== null) {
      where.push(`decision '${location.decisionName ?? location.decisionId}'`);
    }
    if (location.ruleIndex !== undefined && location.ruleIndex !== null) {
      where.push(`rule ${location.ruleIndex + 1}${location.ruleId ? ` (${location.ruleId})` : ''}`);
    }
    if (location.elementId) where.push(`element ${location.elementId}`);
    super(where.length > 0 ? `${where.join(', ')}: ${detail}` : detail);
    this.name = 'DmnEvaluationError';
    this.decisionId = location.decisionId;
    this.decisionName = location.decisionName;
    this.ruleId = location.ruleId ?? null;
    this.ruleIndex = location.ruleIndex ?? null;
    this.elementId = location.elementId ?? null;
  }
}
