import { child, children, foreignAttribute, readDmnXml, str, type ModdleNode } from './moddle-reader.js';
import { normalizeDmnNamespaces, unsafeXmlReason } from './xml-input.js';
import { checkModel } from './check-model.js';
import { dmnSizeProblems, type DmnLimits } from './dmn-limits.js';
import type {
  Aggregation,
  DmnBkm,
  DmnDecision,
  DmnDecisionService,
  DmnExpression,
  DmnFunctionDefinition,
  DmnInputData,
  DmnItemDefinition,
  DmnModel,
  DmnProblem,
  HitPolicy,
} from './types.js';

const HIT_POLICIES: readonly string[] = [
  'UNIQUE',
  'FIRST',
  'PRIORITY',
  'ANY',
  'COLLECT',
  'RULE ORDER',
  'OUTPUT ORDER',
] satisfies HitPolicy[];
const AGGREGATIONS: readonly string[] = ['SUM', 'MIN', 'MAX', 'COUNT'] satisfies Aggregation[];
const CAMUNDA_DMN_NAMESPACE = 'http://camunda.org/schema/1.0/dmn';
/** Camunda's historyTimeToLive is a Java Integer. */
const MAX_HISTORY_TIME_TO_LIVE = 2_147_483_647;

/** What parseDmn returns: the model as far as it could be read, and every problem found. */
export interface ParsedDmn {
  definitions: DmnModel;
  problems: DmnProblem[];
  /** Whether evaluating some decision can take long (see ModelCheck.mayRunLong). */
  mayRunLong: boolean;
}

/**
 * Parses a DMN 1.1–1.5 document into a DmnModel and lists every problem found (unsafe XML, unsupported
 * elements, broken references, circular requirements, unknown hit policies, FEEL syntax errors,
 * missing parts; given limits, too many elements or FEEL texts, or too long a text). A model with
 * problems must not be evaluated; compileDmn refuses it.
 */
export function parseDmn(xml: string, limits?: DmnLimits): ParsedDmn {
  const problems: DmnProblem[] = [];
  const empty: DmnModel = {
    id: null,
    name: null,
    namespace: null,
    decisions: [],
    inputData: [],
    bkms: [],
    decisionServices: [],
    itemDefinitions: [],
  };
  const unsafe = unsafeXmlReason(xml);
  if (unsafe !== null) {
    return { definitions: empty, problems: [{ elementId: null, message: unsafe }], mayRunLong: false };
  }
  const oversized = limits === undefined ? [] : dmnSizeProblems(xml, limits);
  if (oversized.length > 0) return { definitions: empty, problems: oversized, mayRunLong: false };

  const { root, warnings } = readDmnXml(normalizeDmnNamespaces(xml));
  for (const warning of warnings) {
    const message = readerProblem(warning);
    if (message !== null) problems.push({ elementId: null, message });
  }
  if (root === null) {
    if (problems.length === 0) problems.push({ elementId: null, message: 'not a DMN definitions document' });
    return { definitions: empty, problems, mayRunLong: false };
  }

  const reader = new ModelReader(problems, str(root, 'namespace'));
  const definitions: DmnModel = {
    id: str(root, 'id'),
    name: str(root, 'name'),
    namespace: str(root, 'namespace'),
    decisions: [],
    inputData: [],
    bkms: [],
    decisionServices: [],
    itemDefinitions: children(root, 'itemDefinition').map((n) => reader.itemDefinition(n)),
  };
  if (children(root, 'import').length > 0) {
    problems.push({ elementId: str(root, 'id'), message: 'imports of other models are not supported' });
  }
  for (const node of children(root, 'drgElement')) {
    switch (node.$type) {
      case 'dmn:Decision':
        definitions.decisions.push(reader.decision(node));
        break;
      case 'dmn:InputData':
        definitions.inputData.push(reader.inputData(node));
        break;
      case 'dmn:BusinessKnowledgeModel':
        definitions.bkms.push(reader.bkm(node));
        break;
      case 'dmn:DecisionService':
        definitions.decisionServices.push(reader.decisionService(node));
        break;
      default:
        // knowledge sources and other DRG elements carry no logic
        break;
    }
  }
  const { mayRunLong } = checkModel(definitions, problems, limits);
  return { definitions, problems, mayRunLong };
}

function readerProblem(warning: string): string | null {
  const unknown = /unknown type <dmn:(\w+)>/.exec(warning);
  const where = /line: (\d+)\s+column: (\d+)/.exec(warning);
  const at = where ? ` (line ${Number(where[1]) + 1}, column ${where[2]})` : '';
  if (unknown) return `unsupported DMN element <${unknown[1]}>${at}`;
  if (/unresolved reference/.test(warning)) return warning;
  if (/unparsable content|non-whitespace outside of root|unclosed|missing/i.test(warning)) {
    return `XML: ${warning.split('\n')[0]}${at}`;
  }
  return null;
}

class ModelReader {
  constructor(
    private readonly problems: DmnProblem[],
    private readonly namespace: string | null,
  ) {}

  private problem(elementId: string | null, message: string): void {
    this.problems.push({ elementId, message });
  }

  private named(node: ModdleNode, what: string): { id: string; name: string } {
    const id = str(node, 'id');
    const name = str(node, 'name') ?? str(child(node, 'variable'), 'name');
    if (id === null) this.problem(name, `${what} has no id`);
    if (name === null || name.trim() === '') this.problem(id, `${what} has no name`);
    return { id: id ?? name ?? '', name: name ?? id ?? '' };
  }

  private href(ref: ModdleNode | null, owner: string): string | null {
    const href = str(ref, 'href');
    if (href === null) {
      this.problem(owner, 'a requirement has no href');
      return null;
    }
    const hash = href.indexOf('#');
    // an href may name the model's own namespace before the '#'
    if (hash > 0 && href.slice(0, hash) === this.namespace) return href.slice(hash + 1);
    if (hash > 0) {
      this.problem(owner, `reference '${href}' points into another model; imports are not supported`);
      return null;
    }
    return hash === 0 ? href.slice(1) : href;
  }

  private hrefs(nodes: ModdleNode[], owner: string): string[] {
    return nodes.map((n) => this.href(n, owner)).filter((id): id is string => id !== null);
  }

  decision(node: ModdleNode): DmnDecision {
    const { id, name } = this.named(node, 'decision');
    const requiredDecisions: string[] = [];
    const requiredInputs: string[] = [];
    for (const requirement of children(node, 'informationRequirement')) {
      const decision = child(requirement, 'requiredDecision');
      const input = child(requirement, 'requiredInput');
      if (decision !== null) {
        const target = this.href(decision, id);
        if (target !== null) requiredDecisions.push(target);
      } else if (input !== null) {
        const target = this.href(input, id);
        if (target !== null) requiredInputs.push(target);
      } else {
        this.problem(
          str(requirement, 'id') ?? id,
          'an information requirement names neither decision nor input',
        );
      }
    }
    const requiredKnowledge = this.hrefs(
      children(node, 'knowledgeRequirement')
        .map((k) => child(k, 'requiredKnowledge'))
        .filter(isPresent),
      id,
    );
    const logicNode = child(node, 'decisionLogic');
    const variableName = str(child(node, 'variable'), 'name');
    return {
      id,
      name,
      typeRef: str(child(node, 'variable'), 'typeRef'),
      requiredDecisions,
      requiredInputs,
      requiredKnowledge,
      logic: logicNode === null ? null : this.expression(logicNode, id),
      // Only when it differs, so that the fingerprints of decisions deployed before stay the same.
      ...(variableName !== null && variableName !== name ? { variableName } : {}),
      ...this.historyTimeToLive(node, id),
    };
  }

  // Camunda's reading: whole days, as `5` or `P5D`; empty is none.
  private historyTimeToLive(node: ModdleNode, id: string): { historyTimeToLive?: number } {
    const raw = foreignAttribute(node, CAMUNDA_DMN_NAMESPACE, 'historyTimeToLive')?.trim() ?? '';
    if (raw === '') return {};
    const digits = /^(?:P(\d+)D|\+?(\d+))$/.exec(raw);
    const days = Number(digits?.[1] ?? digits?.[2] ?? Number.NaN);
    if (Number.isSafeInteger(days) && days <= MAX_HISTORY_TIME_TO_LIVE) return { historyTimeToLive: days };
    this.problem(
      id,
      `camunda:historyTimeToLive of decision '${id}' is '${raw}': it must be a whole number of days from 0 to ${MAX_HISTORY_TIME_TO_LIVE}, written as 5 or P5D`,
    );
    return {};
  }

  inputData(node: ModdleNode): DmnInputData {
    const { id, name } = this.named(node, 'input data');
    return { id, name, typeRef: str(child(node, 'variable'), 'typeRef') };
  }

  bkm(node: ModdleNode): DmnBkm {
    const { id, name } = this.named(node, 'business knowledge model');
    const logicNode = child(node, 'encapsulatedLogic');
    const logic = logicNode === null ? null : this.expression(logicNode, id);
    if (logicNode === null) this.problem(id, `business knowledge model '${name}' has no encapsulated logic`);
    return {
      id,
      name,
      typeRef: str(child(node, 'variable'), 'typeRef'),
      requiredKnowledge: this.hrefs(
        children(node, 'knowledgeRequirement')
          .map((k) => child(k, 'requiredKnowledge'))
          .filter(isPresent),
        id,
      ),
      logic: logic?.kind === 'function' ? logic : null,
    };
  }

  decisionService(node: ModdleNode): DmnDecisionService {
    const { id, name } = this.named(node, 'decision service');
    const outputDecisions = this.hrefs(children(node, 'outputDecision'), id);
    if (outputDecisions.length === 0) this.problem(id, `decision service '${name}' has no output decision`);
    return {
      id,
      name,
      outputDecisions,
      encapsulatedDecisions: this.hrefs(children(node, 'encapsulatedDecision'), id),
      inputDecisions: this.hrefs(children(node, 'inputDecision'), id),
      inputData: this.hrefs(children(node, 'inputData'), id),
    };
  }

  itemDefinition(node: ModdleNode): DmnItemDefinition {
    return {
      name: str(node, 'name') ?? '',
      typeRef: str(node, 'typeRef'),
      isCollection: node.isCollection === true,
      allowedValues: str(child(node, 'allowedValues'), 'text'),
      components: children(node, 'itemComponent').map((c) => this.itemDefinition(c)),
      isFunction: child(node, 'functionItem') !== null,
    };
  }

  expression(node: ModdleNode, owner: string): DmnExpression | null {
    const id = str(node, 'id');
    const typeRef = str(node, 'typeRef');
    const at = id ?? owner;
    switch (node.$type) {
      case 'dmn:LiteralExpression': {
        const text = str(node, 'text');
        if (text === null || text.trim() === '') {
          this.problem(at, 'literal expression has no text');
          return null;
        }
        return { kind: 'literal', id, text, typeRef };
      }
      case 'dmn:DecisionTable':
        return this.decisionTable(node, owner);
      case 'dmn:Context':
        return {
          kind: 'context',
          id,
          typeRef,
          entries: children(node, 'contextEntry').map((entry) => {
            const variable = child(entry, 'variable');
            const valueNode = child(entry, 'value');
            const entryId = str(entry, 'id') ?? at;
            if (valueNode === null) this.problem(entryId, 'context entry has no value');
            const value = valueNode === null ? null : this.expression(valueNode, owner);
            return {
              name: str(variable, 'name'),
              typeRef: str(variable, 'typeRef'),
              value: value ?? { kind: 'literal', id: entryId, text: 'null', typeRef: null },
            };
          }),
        };
      case 'dmn:List':
        return {
          kind: 'list',
          id,
          typeRef,
          items: children(node, 'elements')
            .map((e) => this.expression(e, owner))
            .filter(isPresent),
        };
      case 'dmn:Relation':
        return {
          kind: 'relation',
          id,
          typeRef,
          columns: children(node, 'column').map((c) => str(c, 'name') ?? ''),
          rows: children(node, 'row').map((row) =>
            children(row, 'elements')
              .map((e) => this.expression(e, owner))
              .filter(isPresent),
          ),
        };
      case 'dmn:Invocation': {
        const called = child(node, 'calledFunction');
        const callee = called === null ? null : str(called, 'text');
        if (callee === null || callee.trim() === '') this.problem(at, 'invocation names no function to call');
        return {
          kind: 'invocation',
          id,
          typeRef,
          callee: (callee ?? '').trim(),
          bindings: children(node, 'binding').map((binding) => {
            const name = str(child(binding, 'parameter'), 'name');
            if (name === null) this.problem(at, 'invocation binding has no parameter name');
            const formula = child(binding, 'bindingFormula');
            return { name: name ?? '', value: formula === null ? null : this.expression(formula, owner) };
          }),
        };
      }
      case 'dmn:FunctionDefinition':
        return this.functionDefinition(node, owner);
      case 'dmn:Conditional':
        return {
          kind: 'conditional',
          id,
          typeRef,
          condition: this.part(node, 'if', at, owner),
          then: this.part(node, 'then', at, owner),
          otherwise: this.part(node, 'else', at, owner),
        };
      case 'dmn:Filter':
        return {
          kind: 'filter',
          id,
          typeRef,
          source: this.part(node, 'in', at, owner),
          match: this.part(node, 'match', at, owner),
        };
      case 'dmn:For':
      case 'dmn:Some':
      case 'dmn:Every': {
        const variable = str(node, 'iteratorVariable');
        if (variable === null || variable.trim() === '')
          this.problem(at, 'iterator names no iterator variable');
        const kind = node.$type === 'dmn:For' ? 'for' : node.$type === 'dmn:Some' ? 'some' : 'every';
        return {
          kind,
          id,
          typeRef,
          variable: (variable ?? '').trim(),
          source: this.part(node, 'in', at, owner),
          body: this.part(node, kind === 'for' ? 'return' : 'satisfies', at, owner),
        };
      }
      default:
        this.problem(at, `unsupported expression <${node.$type.replace(/^dmn:/, '')}>`);
        return null;
    }
  }

  // The expression inside a child expression element (`<if>`, `<in>`…) of a DMN 1.4+ boxed expression;
  // a missing one is a problem (and null, so the model is not evaluated anyway).
  private part(node: ModdleNode, key: string, at: string, owner: string): DmnExpression {
    const valueNode = child(child(node, key), 'value');
    const value = valueNode === null ? null : this.expression(valueNode, owner);
    if (valueNode === null)
      this.problem(at, `<${node.$type.replace(/^dmn:/, '').toLowerCase()}> has no <${key}>`);
    return value ?? { kind: 'literal', id: at, text: 'null', typeRef: null };
  }

  private functionDefinition(node: ModdleNode, owner: string): DmnFunctionDefinition | null {
    const id = str(node, 'id');
    const kind = str(node, 'kind') ?? 'FEEL';
    if (kind !== 'FEEL') {
      this.problem(id ?? owner, `function kind '${kind}' is not supported (only FEEL)`);
      return null;
    }
    const bodyNode = child(node, 'body');
    if (bodyNode === null) this.problem(id ?? owner, 'function definition has no body');
    return {
      kind: 'function',
      id,
      typeRef: str(node, 'typeRef'),
      parameters: children(node, 'formalParameter').map((p) => ({
        name: str(p, 'name') ?? '',
        typeRef: str(p, 'typeRef'),
      })),
      body: bodyNode === null ? null : this.expression(bodyNode, owner),
    };
  }

  private decisionTable(node: ModdleNode, owner: string): DmnExpression {
    const id = str(node, 'id');
    const at = id ?? owner;
    const hitPolicyText = str(node, 'hitPolicy') ?? 'UNIQUE';
    if (!HIT_POLICIES.includes(hitPolicyText)) {
      this.problem(at, `unknown hit policy '${hitPolicyText}'`);
    }
    const aggregationText = str(node, 'aggregation');
    if (aggregationText !== null && !AGGREGATIONS.includes(aggregationText)) {
      this.problem(at, `unknown aggregation '${aggregationText}'`);
    }
    if (aggregationText !== null && hitPolicyText !== 'COLLECT') {
      this.problem(at, `aggregation ${aggregationText} needs hit policy COLLECT, not ${hitPolicyText}`);
    }
    const inputs = children(node, 'input').map((input) => {
      const expression = child(input, 'inputExpression');
      const text = str(expression, 'text');
      if (text === null || text.trim() === '') {
        this.problem(str(input, 'id') ?? at, 'decision table input has no input expression');
      }
      return {
        id: str(input, 'id'),
        label: str(input, 'label'),
        expression: text ?? 'null',
        typeRef: str(expression, 'typeRef'),
        inputValues: str(child(input, 'inputValues'), 'text'),
      };
    });
    const outputs = children(node, 'output').map((output) => ({
      id: str(output, 'id'),
      name: str(output, 'name'),
      typeRef: str(output, 'typeRef'),
      outputValues: str(child(output, 'outputValues'), 'text'),
      defaultOutput: str(child(output, 'defaultOutputEntry'), 'text'),
    }));
    if (outputs.length === 0) this.problem(at, 'decision table has no output');
    if (outputs.length > 1) {
      outputs.forEach((output, i) => {
        if (!output.name)
          this.problem(output.id ?? at, `output ${i + 1} of a multi-output table has no name`);
      });
    }
    if (
      (aggregationText !== null && outputs.length > 1) ||
      (aggregationText === 'COUNT' && outputs.length > 1)
    ) {
      this.problem(at, `aggregation ${aggregationText} needs a single output`);
    }
    const rules = children(node, 'rule').map((rule, index) => {
      const ruleId = str(rule, 'id');
      const inputEntries = children(rule, 'inputEntry').map((e) => str(e, 'text') ?? '-');
      const outputEntries = children(rule, 'outputEntry').map((e) => str(e, 'text') ?? 'null');
      const where = ruleId ?? `${at} rule ${index + 1}`;
      if (inputEntries.length !== inputs.length) {
        this.problem(
          where,
          `rule ${index + 1} has ${inputEntries.length} input entries for ${inputs.length} inputs`,
        );
      }
      if (outputEntries.length !== outputs.length) {
        this.problem(
          where,
          `rule ${index + 1} has ${outputEntries.length} output entries for ${outputs.length} outputs`,
        );
      }
      return { id: ruleId, inputEntries, outputEntries };
    });
    return {
      kind: 'decisionTable',
      id,
      hitPolicy: hitPolicyText as HitPolicy,
      aggregation: aggregationText as Aggregation | null,
      typeRef: str(node, 'typeRef'),
      outputLabel: str(node, 'outputLabel'),
      inputs,
      outputs,
      rules,
    };
  }
}

function isPresent<T>(value: T | null): value is T {
  return value !== null;
}
