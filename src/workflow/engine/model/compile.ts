import { BpmnModdle } from 'bpmn-moddle';
import { buildProcess } from './build-process.js';
import { buildGlobalScriptTask } from './global-tasks.js';
import { CORRECTED_PACKAGES } from './moddle-packages.js';
import type { ModdleNode } from './moddle-node.js';
import { child, isNode, list, str } from './moddle-node.js';
import { Problems } from './problems.js';
import type { CompileOptions, CompileResult, MessageFlowModel, ProcessModel } from './types.js';
import { validateProcess } from './validate-process.js';
import { checkXmlText } from './xml-guard.js';

/**
 * Compiles BPMN 2.0 XML (plain, Camunda 7 or Zeebe flavoured) into executable process models, or
 * returns every problem that stops it from being deployed. Never throws for bad input.
 *
 * Which processes are compiled: each `isExecutable="true"` process, and each global script task as
 * a callable process of its own (see `buildGlobalScriptTask`). When none is marked and the
 * document has exactly one process, that process is compiled anyway — Camunda would refuse it,
 * but many modelling tools leave the flag out (or write `false` by default), and deploying a
 * one-process document says plainly that it is meant to run.
 */
export async function compileBpmn(xml: string, options: CompileOptions = {}): Promise<CompileResult> {
  const problems = new Problems();
  const textProblem = checkXmlText(xml, options.maxLength);
  if (textProblem !== null) return { ok: false, problems: [{ elementId: null, message: textProblem }] };

  const definitions = await parse(xml, problems);
  if (definitions === null) return { ok: false, problems: problems.list };

  const roots = list(definitions, 'rootElements');
  const processes = roots.filter((node) => node.$type === 'bpmn:Process');
  const marked = processes.filter((node) => node.isExecutable === true);
  const executable = marked.length > 0 ? marked : processes.length === 1 ? processes : [];
  if (processes.length === 0) problems.add(null, 'the document has no process');
  else if (executable.length === 0) {
    problems.add(null, `none of the ${processes.length} processes is marked isExecutable="true"`);
  }

  const models: ProcessModel[] = [];
  const ctx = { problems, extensions: options.extensions ?? {} };
  for (const process of executable) {
    const processKey = str(process, 'id');
    if (processKey === null) {
      problems.add(null, 'a process has no id');
      continue;
    }
    const model = buildProcess(process, processKey, ctx);
    validateProcess(model, problems);
    models.push(model);
  }
  if (executable.length > 0) {
    for (const task of roots.filter((node) => node.$type === 'bpmn:GlobalScriptTask')) {
      const model = buildGlobalScriptTask(task, ctx);
      if (model !== null) models.push(model);
    }
  }
  const messageFlows = readMessageFlows(roots);
  for (const model of models) {
    model.messageFlows = messageFlows.filter(
      (flow) => flow.sourceProcessKey === model.processKey || flow.targetProcessKey === model.processKey,
    );
  }
  return problems.empty ? { ok: true, processes: models } : { ok: false, problems: problems.list };
}

async function parse(xml: string, problems: Problems): Promise<ModdleNode | null> {
  try {
    const { rootElement, warnings } = await new BpmnModdle(CORRECTED_PACKAGES).fromXML(xml);
    // Other warnings (vendor content moddle cannot type, unresolved references) are either
    // harmless or caught by the model checks with a clearer message.
    for (const warning of warnings) {
      const unknown = /unknown type <(bpmn:[^>]+)>/.exec(warning.message);
      if (unknown !== null) problems.add(null, `unknown element <${unknown[1]}>${lineOf(warning.message)}`);
      // moddle keeps the first element with an id and drops the others.
      const duplicate = /duplicate ID <([^>]+)>/.exec(warning.message)?.[1];
      if (duplicate !== undefined) problems.add(duplicate, `the id '${duplicate}' is used more than once`);
      // A compensation throw whose activityRef is lost would compensate its whole scope instead.
      if (warning.property === 'bpmn:activityRef') {
        const parent: unknown = isNode(warning.element) ? warning.element.$parent : undefined;
        const eventId = isNode(parent) ? str(parent, 'id') : null;
        problems.add(
          eventId,
          `compensation event '${eventId ?? '?'}' names activity '${typeof warning.value === 'string' ? warning.value : ''}', which does not exist`,
        );
      }
      // Left out, a missing event definition would quietly turn the event into a none event.
      if (warning.property === 'bpmn:eventDefinitionRef') {
        const id = isNode(warning.element) ? str(warning.element, 'id') : null;
        problems.add(
          id,
          `eventDefinitionRef of '${id ?? '?'}' names '${String(warning.value)}', which is not an event definition of the document`,
        );
      }
    }
    if (!isNode(rootElement) || rootElement.$type !== 'bpmn:Definitions') {
      problems.add(null, 'the root element is not <bpmn:definitions>');
      return null;
    }
    return rootElement;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes('failed to parse document as <bpmn:Definitions>')) {
      problems.add(null, 'the root element is not <bpmn:definitions>');
    } else {
      const nested = /nested error: (.*)/.exec(message)?.[1] ?? message.split('\n')[0] ?? message;
      problems.add(null, `the document is not well-formed XML: ${nested}${lineOf(message)}`);
    }
    return null;
  }
}

// moddle reports zero-based line and column numbers.
function lineOf(message: string): string {
  const line = /line: (\d+)/.exec(message)?.[1];
  const column = /column: (\d+)/.exec(message)?.[1];
  if (line === undefined) return '';
  return ` (line ${Number(line) + 1}${column === undefined ? '' : `, column ${Number(column) + 1}`})`;
}

/** Message flows of every collaboration, with the process at each end when there is one. */
function readMessageFlows(roots: ModdleNode[]): MessageFlowModel[] {
  const flows: MessageFlowModel[] = [];
  for (const collaboration of roots.filter((node) => node.$type === 'bpmn:Collaboration')) {
    for (const flow of list(collaboration, 'messageFlows')) {
      const source = child(flow, 'sourceRef');
      const target = child(flow, 'targetRef');
      const id = str(flow, 'id');
      if (id === null || source === null || target === null) continue;
      const message = child(flow, 'messageRef');
      flows.push({
        id,
        name: str(flow, 'name'),
        sourceRef: str(source, 'id') ?? '',
        targetRef: str(target, 'id') ?? '',
        sourceProcessKey: processKeyOf(source),
        targetProcessKey: processKeyOf(target),
        messageName: message === null ? null : str(message, 'name'),
      });
    }
  }
  return flows;
}

// A participant names its process; a flow node sits inside one.
function processKeyOf(node: ModdleNode): string | null {
  if (node.$type === 'bpmn:Participant') {
    const process = child(node, 'processRef');
    return process === null ? null : str(process, 'id');
  }
  for (let current: ModdleNode | undefined = node; current !== undefined; current = current.$parent) {
    if (current.$type === 'bpmn:Process') return str(current, 'id');
  }
  return null;
}
