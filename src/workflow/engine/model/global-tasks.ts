import type { ElementContext } from './build-element.js';
import { readJob } from './job-definition.js';
import type { ModdleNode } from './moddle-node.js';
import { str } from './moddle-node.js';
import { readScript, scriptFormatProblem } from './task-details.js';
import type { ElementBase, FlowModel, ProcessModel } from './types.js';

/**
 * Compiles a `bpmn:globalScriptTask` (a reusable callable element, BPMN 10.2.6) into a process of
 * its own, keyed by the global task's id, so a call activity naming it runs it like any called
 * process: `<id>_start` → `<id>_script` (the script task) → `<id>_end`. The script is FEEL or
 * JavaScript (`scriptLanguage`, default FEEL) or a job (`camunda:topic`), as on a script task; its result
 * variable lands in the called instance, and reaches the caller through the call activity's
 * output mappings (or `camunda:out variables="all"`). Returns null after recording a problem.
 */
export function buildGlobalScriptTask(node: ModdleNode, ctx: ElementContext): ProcessModel | null {
  const { problems } = ctx;
  const id = str(node, 'id');
  if (id === null) {
    problems.add(null, 'a globalScriptTask has no id');
    return null;
  }
  const before = problems.list.length;
  const job = readJob(node, id, problems);
  // readScript reads `scriptFormat`; a global script task names it `scriptLanguage`.
  const language = str(node, 'scriptLanguage');
  // A view of the node (its $attrs and $parent, which hold the namespaces, stay reachable).
  const scripted = Object.assign(Object.create(node) as ModdleNode, { scriptFormat: language ?? undefined });
  const script = readScript(scripted, id, problems);
  if (job === null && problems.list.length === before) {
    const unsupported =
      script.script === null ? null : scriptFormatProblem('global script task', id, script.script.format);
    if (script.script === null) problems.add(id, `global script task '${id}' has no script`);
    else if (unsupported !== null) problems.add(id, unsupported);
  }
  if (problems.list.length > before) return null;
  const ids = { start: `${id}_start`, script: `${id}_script`, end: `${id}_end` };
  const base = (elementId: string, incoming: string[], outgoing: string[]): ElementBase => ({
    id: elementId,
    name: null,
    parentId: id,
    incoming,
    outgoing,
    inputs: [],
    outputs: [],
    extensions: [],
  });
  const flow = (flowId: string, sourceId: string, targetId: string): FlowModel => ({
    id: flowId,
    name: null,
    sourceId,
    targetId,
    condition: null,
    isDefault: false,
  });
  const toScript = flow(`${id}_toScript`, ids.start, ids.script);
  const toEnd = flow(`${id}_toEnd`, ids.script, ids.end);
  return {
    processKey: id,
    name: str(node, 'name') ?? id,
    elements: {
      [ids.start]: {
        ...base(ids.start, [], [toScript.id]),
        type: 'startEvent',
        eventDefinition: { kind: 'none' },
        isInterrupting: true,
      },
      [ids.script]: {
        ...base(ids.script, [toScript.id], [toEnd.id]),
        name: str(node, 'name'),
        type: 'scriptTask',
        boundaryEventIds: [],
        multiInstance: null,
        ...script,
        job,
        implementedBy: null,
      },
      [ids.end]: { ...base(ids.end, [toEnd.id], []), type: 'endEvent', eventDefinition: { kind: 'none' } },
    },
    flows: { [toScript.id]: toScript, [toEnd.id]: toEnd },
    childIds: [ids.start, ids.script, ids.end],
    eventSubProcessIds: [],
    startEventIds: { none: [ids.start], timer: [], message: [], signal: [] },
    messageFlows: [],
    extensions: [],
  };
}
