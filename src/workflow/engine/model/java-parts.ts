import type { ModdleNode } from './moddle-node.js';
import { extension, extensionsIn, genericAttr, localName, nsAttr, NS } from './moddle-node.js';
import type { Problems } from './problems.js';

/**
 * Camunda 7 parts that run Java code inside the engine: a delegate class, a bean resolved by an
 * expression, a Connect connector, a Java listener, a Java variable mapping. weft runs no Java, so a
 * model that uses one is refused at deploy time, one problem per use, naming the element and saying
 * what to do instead (the work goes to an external task and its worker).
 */

const EXTERNAL_TASK =
  'make it an external task (camunda:type="external" camunda:topic="…") and do that work in a worker';

/** The attributes and extension by which a Camunda 7 task runs Java, in the order they are checked. */
const DELEGATE_ATTRIBUTES = ['class', 'delegateExpression', 'expression'] as const;

/** Names the Camunda 7 Java implementation an element uses (`camunda:class`, …), or null. */
export function javaImplementation(node: ModdleNode): string | null {
  for (const name of DELEGATE_ATTRIBUTES) {
    if (nsAttr(node, NS.camunda, name) !== null) return `camunda:${name}`;
  }
  if (extension(node, NS.camunda, 'connector') !== null) return 'camunda:connector';
  const type = nsAttr(node, NS.camunda, 'type');
  return type !== null && type !== 'external' ? `camunda:type="${type}"` : null;
}

/** Why a Java implementation cannot run, and what to use instead. */
function remedy(java: string): string {
  if (java === 'camunda:class') return `weft runs no Java code; ${EXTERNAL_TASK}`;
  if (java === 'camunda:delegateExpression') {
    return `weft has no Java (or Spring) beans for the expression to name; ${EXTERNAL_TASK}`;
  }
  if (java === 'camunda:expression') {
    return `an expression that calls a method of a Java (or Spring) bean cannot run in weft; ${EXTERNAL_TASK}`;
  }
  if (java === 'camunda:connector') {
    return `Camunda Connect connectors run in Java; use weft's <weft:httpConnector> (docs/workflow/http-connector.md) or ${EXTERNAL_TASK}`;
  }
  return `weft runs only external tasks (camunda:type="external"); ${EXTERNAL_TASK}`;
}

/**
 * The problem for an element implemented in Java: `<what> '<id>' uses <java>, which is not
 * supported: <why>; make it an external task …`.
 */
export function javaImplementationProblem(what: string, id: string, java: string): string {
  return `${what} '${id}' uses ${java}, which is not supported: ${remedy(java)}`;
}

const LISTENERS = ['executionListener', 'taskListener'] as const;

/**
 * Records a problem for each Camunda execution or task listener of an element (a flow node, a
 * sequence flow or a process) written as a Java class or a bean's delegate expression. Listeners
 * written as an expression or a script are not looked at here.
 */
export function checkJavaListeners(node: ModdleNode, id: string, problems: Problems): void {
  for (const listener of extensionsIn(node, NS.camunda)) {
    const kind = localName(listener);
    if (!(LISTENERS as readonly string[]).includes(kind)) continue;
    const event = genericAttr(listener, 'event');
    const label = `camunda:${kind}${event === null ? '' : ` (event '${event}')`}`;
    const className = genericAttr(listener, 'class');
    if (className !== null) {
      problems.add(
        id,
        `${label} of '${id}' is the Java class '${className}', which is not supported: weft runs no Java code; move that work into an external task (camunda:type="external" camunda:topic="…") done by a worker`,
      );
      continue;
    }
    const delegate = genericAttr(listener, 'delegateExpression');
    if (delegate !== null) {
      problems.add(
        id,
        `${label} of '${id}' is the delegate expression '${delegate}', which is not supported: weft has no Java (or Spring) beans for it to name; move that work into an external task (camunda:type="external" camunda:topic="…") done by a worker`,
      );
    }
  }
}

/**
 * Records a problem when a call activity delegates its variable passing to Java
 * (`camunda:variableMappingClass` or `camunda:variableMappingDelegateExpression`).
 */
export function checkJavaVariableMapping(node: ModdleNode, id: string, problems: Problems): void {
  for (const name of ['variableMappingClass', 'variableMappingDelegateExpression']) {
    if (nsAttr(node, NS.camunda, name) === null) continue;
    problems.add(
      id,
      `call activity '${id}' uses camunda:${name}, which is not supported: weft runs no Java code; pass variables with camunda:in and camunda:out`,
    );
  }
}
