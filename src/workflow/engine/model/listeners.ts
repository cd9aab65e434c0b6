import { feelExpression } from './expressions.js';
import { checkJavaListeners } from './java-parts.js';
import type { ModdleNode } from './moddle-node.js';
import { childrenNamed, extensionsIn, genericAttr, localName, NS } from './moddle-node.js';
import type { Problems } from './problems.js';
import { JAVASCRIPT_FORMATS, MAX_JAVASCRIPT_LENGTH } from './task-details.js';
import type { ListenerModel } from './types.js';

/** What carries the listeners: which events each kind of listener may name there. */
export type ListenerHost = 'process' | 'flowNode' | 'userTask' | 'sequenceFlow';

const EXECUTION_EVENTS: Record<ListenerHost, readonly string[]> = {
  process: ['start', 'end'],
  flowNode: ['start', 'end'],
  userTask: ['start', 'end'],
  sequenceFlow: ['take'],
};
const TASK_EVENTS = ['create', 'assignment', 'complete', 'delete'] as const;

/**
 * Reads the Camunda 7 execution and task listeners of a process, flow node or sequence flow
 * (docs/workflow/camunda7.md, "Listeners"). Every listener is either kept to run or refused with a
 * problem naming the element, the event and why: Java ones (class, delegate expression) by
 * {@link checkJavaListeners}; field injection, script resources, languages other than JavaScript,
 * and the `update` and `timeout` task events. JavaScript runs for every event an expression runs for.
 */
export function readListeners(
  node: ModdleNode,
  id: string,
  host: ListenerHost,
  problems: Problems,
): ListenerModel[] {
  checkJavaListeners(node, id, problems);
  const listeners: ListenerModel[] = [];
  for (const raw of extensionsIn(node, NS.camunda)) {
    const kind = localName(raw);
    if (kind !== 'executionListener' && kind !== 'taskListener') continue;
    // Java listeners are refused by checkJavaListeners.
    if (genericAttr(raw, 'class') !== null || genericAttr(raw, 'delegateExpression') !== null) continue;
    const event =
      genericAttr(raw, 'event') ?? (kind === 'executionListener' && host === 'sequenceFlow' ? 'take' : null);
    const label = `camunda:${kind}${event === null ? '' : ` (event '${event}')`} of '${id}'`;
    const refuse = (why: string) => problems.add(id, `${label} ${why}`);
    if (event === null) {
      refuse('names no event');
      continue;
    }
    if (kind === 'taskListener') {
      if (host !== 'userTask') {
        refuse('is on an element that is not a user task');
        continue;
      }
      if (event === 'update' || event === 'timeout') {
        refuse(
          `is not supported: weft fires the task events create, assignment, complete and delete; ${event === 'timeout' ? 'use a timer boundary event instead' : 'use an assignment or complete listener instead'}`,
        );
        continue;
      }
      if (!(TASK_EVENTS as readonly string[]).includes(event)) {
        refuse(`names an unknown event; task listeners fire on ${TASK_EVENTS.join(', ')}`);
        continue;
      }
    } else if (!EXECUTION_EVENTS[host].includes(event)) {
      refuse(`names an event that does not happen there; expected ${EXECUTION_EVENTS[host].join(' or ')}`);
      continue;
    }
    if (childrenNamed(raw, 'field').length > 0) {
      refuse('injects camunda:field values, which only Java class listeners read; weft runs no Java code');
      continue;
    }
    const listenerKind = kind === 'executionListener' ? 'execution' : 'task';
    const expression = genericAttr(raw, 'expression');
    const scripts = childrenNamed(raw, 'script');
    if (expression !== null) {
      const text = expression.trim();
      if (!/^[$#]\{[\s\S]*\}$/.test(text)) {
        refuse(`has the expression '${expression}', which is not a JUEL expression (\${…})`);
        continue;
      }
      const what = `camunda:${kind} (event '${event}')`;
      const compiled = feelExpression(text, { problems, elementId: id, what });
      if (compiled !== null)
        listeners.push({ kind: listenerKind, event, expression: compiled, script: null });
      continue;
    }
    const script = scripts[0];
    if (script === undefined) {
      refuse('has neither an expression nor a script');
      continue;
    }
    const format = (genericAttr(script, 'scriptFormat') ?? '').toLowerCase();
    if (genericAttr(script, 'resource') !== null) {
      refuse('loads its script from a resource, which is not supported: write the script inline');
      continue;
    }
    if (!JAVASCRIPT_FORMATS.includes(format)) {
      refuse(
        `is written in '${format || 'no scriptFormat'}', which weft cannot run: write it in JavaScript (scriptFormat="javascript") or as an expression (\${…})`,
      );
      continue;
    }
    const text = (typeof script.$body === 'string' ? script.$body : '').trim();
    if (text === '') {
      refuse('has an empty script');
      continue;
    }
    if (text.length > MAX_JAVASCRIPT_LENGTH) {
      refuse(`has a script over ${MAX_JAVASCRIPT_LENGTH} characters`);
      continue;
    }
    listeners.push({ kind: listenerKind, event, expression: null, script: text });
  }
  return listeners;
}
