/**
 * Types of the DMN decision engine.
 *
 * Glossary:
 * - definitions: one DMN file; holds decisions, input data, business knowledge models (BKMs), decision
 *   services and item definitions, all together the decision requirements graph (DRG).
 * - decision: a named value computed by its decision logic (a boxed expression) from the input data and
 *   the decisions it requires.
 * - input data: a named value supplied by the caller.
 * - BKM: a named function (encapsulated logic) that decisions call; it sees only its parameters and the
 *   BKMs it requires.
 * - decision service: a function over input decisions and input data that returns its output decisions.
 * - boxed expression: literal expression, decision table, context, list, relation, invocation, function
 *   definition, conditional, filter or iterator (for, some, every); they nest.
 * - hit policy: how a decision table turns the rules that matched into a result.
 * - problem: something wrong in a model found before evaluation; a model with problems is not evaluable.
 */

/** Something wrong in a DMN model, found while parsing; `elementId` names the element at fault. */
export interface DmnProblem {
  elementId: string | null;
  message: string;
}

/** A literal FEEL expression. */
export interface DmnLiteral {
  kind: 'literal';
  id: string | null;
  text: string;
  typeRef: string | null;
}

/** One input column of a decision table. */
export interface DmnTableInput {
  id: string | null;
  label: string | null;
  expression: string;
  typeRef: string | null;
  inputValues: string | null;
}

/** One output column of a decision table. */
export interface DmnTableOutput {
  id: string | null;
  name: string | null;
  typeRef: string | null;
  outputValues: string | null;
  defaultOutput: string | null;
}

/** One rule (row) of a decision table: one unary test per input, one expression per output. */
export interface DmnTableRule {
  id: string | null;
  inputEntries: string[];
  outputEntries: string[];
}

/** The hit policies of DMN decision tables. */
export type HitPolicy = 'UNIQUE' | 'FIRST' | 'PRIORITY' | 'ANY' | 'COLLECT' | 'RULE ORDER' | 'OUTPUT ORDER';

/** The aggregations of the COLLECT hit policy. */
export type Aggregation = 'SUM' | 'MIN' | 'MAX' | 'COUNT';

/** A decision table. */
export interface DmnDecisionTable {
  kind: 'decisionTable';
  id: string | null;
  hitPolicy: HitPolicy;
  aggregation: Aggregation | null;
  typeRef: string | null;
  outputLabel: string | null;
  inputs: DmnTableInput[];
  outputs: DmnTableOutput[];
  rules: DmnTableRule[];
}

/** A boxed context: entries in order, a last entry without a name is the result. */
export interface DmnContext {
  kind: 'context';
  id: string | null;
  typeRef: string | null;
  entries: { name: string | null; typeRef: string | null; value: DmnExpression }[];
}

/** A boxed list. */
export interface DmnList {
  kind: 'list';
  id: string | null;
  typeRef: string | null;
  items: DmnExpression[];
}

/** A relation: a list of contexts sharing the same columns. */
export interface DmnRelation {
  kind: 'relation';
  id: string | null;
  typeRef: string | null;
  columns: string[];
  rows: DmnExpression[][];
}

/** A boxed invocation of a function (usually a BKM) with named arguments. */
export interface DmnInvocation {
  kind: 'invocation';
  id: string | null;
  typeRef: string | null;
  callee: string;
  bindings: { name: string; value: DmnExpression | null }[];
}

/** A boxed function definition with FEEL body. */
export interface DmnFunctionDefinition {
  kind: 'function';
  id: string | null;
  typeRef: string | null;
  parameters: { name: string; typeRef: string | null }[];
  body: DmnExpression | null;
}

/** A boxed conditional (DMN 1.4): `then` when `condition` is true, else `otherwise`. */
export interface DmnConditional {
  kind: 'conditional';
  id: string | null;
  typeRef: string | null;
  condition: DmnExpression;
  then: DmnExpression;
  otherwise: DmnExpression;
}

/** A boxed filter (DMN 1.4): the items of `source` for which `match` (with `item` bound) is true. */
export interface DmnFilter {
  kind: 'filter';
  id: string | null;
  typeRef: string | null;
  source: DmnExpression;
  match: DmnExpression;
}

/**
 * A boxed iterator (DMN 1.4): `for` maps each item of `source` (bound to `variable`) through `body`;
 * `some` and `every` test `body` (their `satisfies`) on the items.
 */
export interface DmnIterator {
  kind: 'for' | 'some' | 'every';
  id: string | null;
  typeRef: string | null;
  variable: string;
  source: DmnExpression;
  body: DmnExpression;
}

/** Any boxed expression. */
export type DmnExpression =
  | DmnLiteral
  | DmnDecisionTable
  | DmnContext
  | DmnList
  | DmnRelation
  | DmnInvocation
  | DmnFunctionDefinition
  | DmnConditional
  | DmnFilter
  | DmnIterator;

/** A decision of the DRG. Requirements hold element ids. */
export interface DmnDecision {
  id: string;
  name: string;
  typeRef: string | null;
  requiredDecisions: string[];
  requiredInputs: string[];
  requiredKnowledge: string[];
  logic: DmnExpression | null;
  /**
   * The name of the decision's `<variable>` when it differs from `name`; the result entry of a decision
   * that is not a decision table is named after it (as Camunda does). Absent when equal or not given.
   */
  variableName?: string;
  /**
   * Camunda 7's `camunda:historyTimeToLive` in days; absent when not given. It changes nothing in an
   * evaluation: its user keeps it with the decision.
   */
  historyTimeToLive?: number;
}

/** An input data element of the DRG. */
export interface DmnInputData {
  id: string;
  name: string;
  typeRef: string | null;
}

/** A business knowledge model: a function decisions can invoke. */
export interface DmnBkm {
  id: string;
  name: string;
  typeRef: string | null;
  requiredKnowledge: string[];
  logic: DmnFunctionDefinition | null;
}

/** A decision service: a function from input decisions and input data to output decisions. */
export interface DmnDecisionService {
  id: string;
  name: string;
  outputDecisions: string[];
  encapsulatedDecisions: string[];
  inputDecisions: string[];
  inputData: string[];
}

/** An item definition (a named type), possibly with components, a collection flag and allowed values. */
export interface DmnItemDefinition {
  name: string;
  typeRef: string | null;
  isCollection: boolean;
  allowedValues: string | null;
  components: DmnItemDefinition[];
  isFunction: boolean;
}

/** A parsed DMN file. */
export interface DmnModel {
  id: string | null;
  name: string | null;
  namespace: string | null;
  decisions: DmnDecision[];
  inputData: DmnInputData[];
  bkms: DmnBkm[];
  decisionServices: DmnDecisionService[];
  itemDefinitions: DmnItemDefinition[];
}

/** A decision table rule that matched during an evaluation, for audit. */
export interface MatchedRule {
  decisionId: string;
  decisionName: string;
  ruleId: string | null;
  ruleIndex: number;
}

/** One entry of a decision result: output name → value (Camunda's `DmnDecisionResultEntries`). */
export type DecisionResultEntry = Record<string, unknown>;

/** What one evaluation of a decision produced. */
export interface DecisionResult {
  result: unknown;
  /**
   * The result as Camunda's decision result, a list of entries: for a decision table one entry per rule
   * that decided the result (the rules the hit policy kept, in its order; the default outputs when no
   * rule matched and the table has any), each mapping every output name to its value; for a COLLECT
   * table with an aggregation one entry with the aggregated value under the output's name; for any
   * other decision logic one entry with the value under the decision's variable name.
   */
  resultList: DecisionResultEntry[];
  matchedRules: MatchedRule[];
}

/** How to treat errors during evaluation. */
export interface EvaluateOptions {
  /**
   * true (default): a missing input data value, or a FEEL expression that fails and yields null, throws
   * DmnEvaluationError. false: the DMN specification's semantics, where both become null.
   */
  strict?: boolean;
}

/** A decision as listed for a caller: its key and the input data names it needs (transitively). */
export interface DecisionInfo {
  id: string;
  name: string;
  requiredInputs: string[];
}
