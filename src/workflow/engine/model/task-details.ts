import { feelExpression, feelString, feelValue, isJuel, type ExpressionSite } from './expressions.js';
import { readFormReference } from './form-reference.js';
import type { ModdleNode } from './moddle-node.js';
import { extension, extensionsIn, genericAttr, localName, nsAttr, NS, str } from './moddle-node.js';
import type { Problems } from './problems.js';
import type {
  CalledElementModel,
  DecisionReference,
  DecisionReferenceModel,
  ScriptTaskModel,
  UserTaskModel,
  VariableMapping,
} from './types.js';

type Binding = DecisionReference['binding'];
const BINDINGS: readonly string[] = ['latest', 'deployment', 'version', 'versionTag'];
const DECISION_RESULTS: readonly string[] = ['singleEntry', 'singleResult', 'collectEntries', 'resultList'];

/** User task assignment, all as FEEL text: Zeebe `zeebe:assignmentDefinition`, or Camunda attributes. */
export function readUserTask(
  node: ModdleNode,
  id: string,
  problems: Problems,
): Pick<
  UserTaskModel,
  'assignee' | 'candidateGroups' | 'candidateUsers' | 'dueDate' | 'followUpDate' | 'formKey' | 'formRef'
> {
  const assignment = extension(node, NS.zeebe, 'assignmentDefinition');
  const schedule = extension(node, NS.zeebe, 'taskSchedule');
  const form = extension(node, NS.zeebe, 'formDefinition');
  const pick = (zeebe: ModdleNode | null, zeebeName: string, camundaName: string) =>
    (zeebe && genericAttr(zeebe, zeebeName)) ?? nsAttr(node, NS.camunda, camundaName);
  const value = (raw: string | null, what: string) =>
    raw === null ? null : feelValue(raw, { problems, elementId: id, what });
  const names = (raw: string | null, what: string) =>
    raw === null ? null : feelNameList(raw, { problems, elementId: id, what });
  const formRef = readFormReference(node, 'user task', id, problems);
  return {
    assignee: value(pick(assignment, 'assignee', 'assignee'), 'assignee'),
    candidateGroups: names(pick(assignment, 'candidateGroups', 'candidateGroups'), 'candidate groups'),
    candidateUsers: names(pick(assignment, 'candidateUsers', 'candidateUsers'), 'candidate users'),
    dueDate: value(pick(schedule, 'dueDate', 'dueDate'), 'due date'),
    followUpDate: value(pick(schedule, 'followUpDate', 'followUpDate'), 'follow-up date'),
    formKey:
      (form && genericAttr(form, 'formKey')) ??
      (form && genericAttr(form, 'formId')) ??
      nsAttr(node, NS.camunda, 'formKey'),
    ...(formRef === null ? {} : { formRef }),
  };
}

// "a, b" is a constant list of names; "=expr" is FEEL giving a list.
function feelNameList(
  raw: string,
  site: { problems: Problems; elementId: string; what: string },
): string | null {
  const trimmed = raw.trim();
  if (trimmed.startsWith('=') || isJuel(trimmed)) return feelExpression(trimmed, site);
  const items = trimmed
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return `[${items.map(feelString).join(', ')}]`;
}

/** The `scriptFormat` names of JavaScript; a script in one of them is stored as format `javascript`. */
export const JAVASCRIPT_FORMATS: readonly string[] = ['javascript', 'js', 'ecmascript'];

/** Characters of a JavaScript script task's script (that of a pipeline step's expression). */
export const MAX_JAVASCRIPT_LENGTH = 65_536;

/**
 * Script of a script task: Zeebe `zeebe:script expression resultVariable`, or BPMN `scriptFormat` +
 * `script`. FEEL (the default format) is checked as FEEL; JavaScript is stored as written, under the
 * format `javascript`; any other format is kept as named, for the caller to refuse.
 */
export function readScript(
  node: ModdleNode,
  id: string,
  problems: Problems,
): Pick<ScriptTaskModel, 'script' | 'resultVariable'> {
  const zeebe = extension(node, NS.zeebe, 'script');
  if (zeebe !== null) {
    const raw = genericAttr(zeebe, 'expression');
    const text = raw === null ? null : feelExpression(raw, { problems, elementId: id, what: 'script' });
    if (raw === null) problems.add(id, `zeebe:script of '${id}' has no expression`);
    return {
      script: text === null ? null : { format: 'feel', text },
      resultVariable: genericAttr(zeebe, 'resultVariable'),
    };
  }
  const resultVariable = nsAttr(node, NS.camunda, 'resultVariable');
  if (nsAttr(node, NS.camunda, 'resource') !== null) {
    problems.add(id, `script task '${id}' loads its script from camunda:resource, which is not supported`);
    return { script: null, resultVariable };
  }
  const text = str(node, 'script');
  if (text === null) return { script: null, resultVariable };
  const format = (str(node, 'scriptFormat') ?? 'feel').toLowerCase();
  if (JAVASCRIPT_FORMATS.includes(format)) {
    if (text.length > MAX_JAVASCRIPT_LENGTH) {
      problems.add(id, `the script of '${id}' is over ${MAX_JAVASCRIPT_LENGTH} characters`);
      return { script: null, resultVariable };
    }
    return { script: { format: 'javascript', text }, resultVariable };
  }
  if (format !== 'feel') return { script: { format, text }, resultVariable };
  const feel = feelExpression(text, { problems, elementId: id, what: 'script' });
  return { script: feel === null ? null : { format, text: feel }, resultVariable };
}

/**
 * The problem of a script in a format weft cannot run (Camunda 7 runs any JSR-223 language: Groovy,
 * Python, Ruby, JUEL, …), or null for FEEL and JavaScript.
 */
export function scriptFormatProblem(what: string, id: string, format: string): string | null {
  if (format === 'feel' || format === 'javascript') return null;
  return `${what} '${id}' is written in '${format}', which weft cannot run: write it in JavaScript (scriptFormat="javascript") or FEEL, as a <weft:pipeline> of jq, FEEL and Rhai steps, or make it an external task (camunda:type="external" camunda:topic="…") and run it in a worker`;
}

/**
 * Decision reference: Zeebe `zeebe:calledDecision`, or Camunda `camunda:decisionRef` and friends.
 * The key (and the version of binding `version`) may be an expression, kept for the runtime.
 */
export function readDecision(
  node: ModdleNode,
  id: string,
  problems: Problems,
): DecisionReferenceModel | null {
  const zeebe = extension(node, NS.zeebe, 'calledDecision');
  const raw = (zeebe && genericAttr(zeebe, 'decisionId')) ?? nsAttr(node, NS.camunda, 'decisionRef');
  if (raw === null) return null;
  const key = readKey(raw, { problems, elementId: id, what: 'decision reference' });
  if (key === null) return null;
  const decisionId = {
    decisionId: key.constant,
    ...(key.expression === null ? {} : { decisionIdExpression: key.expression }),
  };
  if (zeebe !== null) {
    const binding = readBinding(genericAttr(zeebe, 'bindingType'), id, problems);
    return {
      ...decisionId,
      binding,
      version: genericAttr(zeebe, 'versionTag'),
      mapDecisionResult: null,
      resultVariable: genericAttr(zeebe, 'resultVariable'),
    };
  }
  const binding = readBinding(nsAttr(node, NS.camunda, 'decisionRefBinding'), id, problems);
  const version = readVersion(
    binding,
    nsAttr(node, NS.camunda, 'decisionRefVersion'),
    nsAttr(node, NS.camunda, 'decisionRefVersionTag'),
    { problems, elementId: id, what: 'decision version' },
  );
  if (version === null) return null;
  const map = nsAttr(node, NS.camunda, 'mapDecisionResult');
  if (map !== null && !DECISION_RESULTS.includes(map)) {
    problems.add(
      id,
      `camunda:mapDecisionResult '${map}' of '${id}' is not one of ${DECISION_RESULTS.join(', ')}`,
    );
  }
  return {
    ...decisionId,
    binding,
    ...version,
    // Camunda 7 maps with resultList when the attribute is absent; null stays Zeebe's "as evaluated".
    mapDecisionResult:
      map !== null && DECISION_RESULTS.includes(map)
        ? (map as DecisionReference['mapDecisionResult'])
        : 'resultList',
    resultVariable: nsAttr(node, NS.camunda, 'resultVariable'),
  };
}

/**
 * Called process of a call activity: Zeebe `zeebe:calledElement processId`, else BPMN `calledElement`
 * with Camunda binding attributes, `camunda:in` / `camunda:out` variable passing and the called
 * instance's business key (`camunda:in businessKey`). The key (and the version of binding `version`)
 * may be an expression, kept for the runtime.
 */
export function readCalledElement(
  node: ModdleNode,
  id: string,
  problems: Problems,
): {
  calledElement: CalledElementModel;
  inputs: VariableMapping[];
  outputs: VariableMapping[];
} | null {
  const zeebe = extension(node, NS.zeebe, 'calledElement');
  const raw = (zeebe && genericAttr(zeebe, 'processId')) ?? str(node, 'calledElement');
  if (raw === null) {
    problems.add(id, `call activity '${id}' has no called element`);
    return null;
  }
  const key = readKey(raw, { problems, elementId: id, what: 'called element' });
  if (key === null) return null;
  const processKey = {
    processKey: key.constant,
    ...(key.expression === null ? {} : { processKeyExpression: key.expression }),
  };
  if (zeebe !== null) {
    return {
      calledElement: {
        ...processKey,
        binding: readBinding(genericAttr(zeebe, 'bindingType'), id, problems),
        version: genericAttr(zeebe, 'versionTag'),
        propagateAllChildVariables: genericAttr(zeebe, 'propagateAllChildVariables') !== 'false',
        propagateAllParentVariables: genericAttr(zeebe, 'propagateAllParentVariables') !== 'false',
      },
      inputs: [],
      outputs: [],
    };
  }
  const binding = readBinding(nsAttr(node, NS.camunda, 'calledElementBinding'), id, problems);
  const version = readVersion(
    binding,
    nsAttr(node, NS.camunda, 'calledElementVersion'),
    nsAttr(node, NS.camunda, 'calledElementVersionTag'),
    { problems, elementId: id, what: 'called element version' },
  );
  if (version === null) return null;
  const passing = readCamundaPassing(node, id, problems);
  return {
    calledElement: {
      ...processKey,
      binding,
      ...version,
      // Without camunda:in / camunda:out, pass everything both ways (the Zeebe default).
      propagateAllChildVariables: passing === null || passing.allOut,
      propagateAllParentVariables: passing === null || passing.allIn,
      ...(passing === null || passing.businessKey === null ? {} : { businessKey: passing.businessKey }),
    },
    inputs: passing?.inputs ?? [],
    outputs: passing?.outputs ?? [],
  };
}

/**
 * A called key: constant text, or an expression (JUEL, or FEEL after `=`) that the runtime evaluates
 * when the element is entered; null after a problem (an empty key, an expression that does not compile).
 */
function readKey(
  raw: string,
  site: ExpressionSite,
): { constant: string; expression: null } | { constant: null; expression: string } | null {
  const trimmed = raw.trim();
  if (trimmed.startsWith('=') || isJuel(trimmed)) {
    const expression = feelExpression(trimmed, site);
    return expression === null ? null : { constant: null, expression };
  }
  if (trimmed === '') {
    site.problems.add(site.elementId, `${site.what} of '${site.elementId}' is empty`);
    return null;
  }
  return { constant: trimmed, expression: null };
}

/**
 * The version of a Camunda binding: the version number of binding `version`, which may be an
 * expression (Camunda 7 evaluates `calledElementVersion` / `decisionRefVersion`), or the version tag
 * of `versionTag`; null after a problem.
 */
function readVersion(
  binding: Binding,
  version: string | null,
  versionTag: string | null,
  site: ExpressionSite,
): { version: string | null; versionExpression?: string } | null {
  const raw = binding === 'versionTag' ? versionTag : version;
  checkVersion(binding, raw, site.elementId, site.problems);
  if (binding !== 'version' || raw === null) return { version: raw };
  const trimmed = raw.trim();
  if (!trimmed.startsWith('=') && !isJuel(trimmed)) return { version: raw };
  const expression = feelExpression(trimmed, site);
  return expression === null ? null : { version: null, versionExpression: expression };
}

function readCamundaPassing(node: ModdleNode, id: string, problems: Problems) {
  const entries = extensionsIn(node, NS.camunda).filter(
    (e) => localName(e) === 'in' || localName(e) === 'out',
  );
  if (entries.length === 0) return null;
  const result = {
    allIn: false,
    allOut: false,
    inputs: [] as VariableMapping[],
    outputs: [] as VariableMapping[],
    businessKey: null as string | null,
  };
  for (const entry of entries) {
    const isIn = localName(entry) === 'in';
    if (genericAttr(entry, 'variables') === 'all') {
      if (isIn) result.allIn = true;
      else result.allOut = true;
      continue;
    }
    const businessKey = genericAttr(entry, 'businessKey');
    if (businessKey !== null) {
      // Camunda reads the attribute on camunda:in only; a constant is the key itself.
      if (isIn)
        result.businessKey = feelValue(businessKey, { problems, elementId: id, what: 'business key' });
      continue;
    }
    const target = genericAttr(entry, 'target');
    const source = genericAttr(entry, 'source');
    const sourceExpression = genericAttr(entry, 'sourceExpression');
    const what = `camunda:${localName(entry)} '${target ?? ''}'`;
    if (target === null || (source === null && sourceExpression === null)) {
      problems.add(id, `${what} of '${id}' needs a target and a source or sourceExpression`);
      continue;
    }
    const expression = feelExpression(sourceExpression ?? source ?? '', { problems, elementId: id, what });
    if (expression !== null) (isIn ? result.inputs : result.outputs).push({ target, expression });
  }
  return result;
}

function readBinding(raw: string | null, id: string, problems: Problems): Binding {
  if (raw === null) return 'latest';
  if (BINDINGS.includes(raw)) return raw as Binding;
  problems.add(id, `binding '${raw}' of '${id}' is not one of ${BINDINGS.join(', ')}`);
  return 'latest';
}

function checkVersion(binding: Binding, version: string | null, id: string, problems: Problems): void {
  if ((binding === 'version' || binding === 'versionTag') && version === null) {
    problems.add(
      id,
      `'${id}' uses binding '${binding}' but gives no ${binding === 'version' ? 'version' : 'version tag'}`,
    );
  }
}
