import { feelExpression, feelValue } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { childrenNamed, extension, genericAttr, localName, NS } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { VariableMapping } from './types.js';

/** Input and output mappings of an element. */
export interface Mappings {
  inputs: VariableMapping[];
  outputs: VariableMapping[];
}

/**
 * Reads Zeebe `zeebe:ioMapping` (input/output with source and target) and Camunda
 * `camunda:inputOutput` (inputParameter/outputParameter with a name and a text value) into FEEL
 * mappings. A source starting with `=` is FEEL; other text is a constant string; JUEL is a problem.
 */
export function readMappings(node: ModdleNode, elementId: string, problems: Problems): Mappings {
  const result: Mappings = { inputs: [], outputs: [] };
  const zeebe = extension(node, NS.zeebe, 'ioMapping');
  if (zeebe !== null) {
    for (const [kind, into] of [
      ['input', result.inputs],
      ['output', result.outputs],
    ] as const) {
      for (const entry of childrenNamed(zeebe, kind)) {
        const mapping = zeebeMapping(entry, kind, elementId, problems);
        if (mapping !== null) into.push(mapping);
      }
    }
  }
  const camunda = extension(node, NS.camunda, 'inputOutput');
  if (camunda !== null) {
    for (const [kind, into] of [
      ['inputParameter', result.inputs],
      ['outputParameter', result.outputs],
    ] as const) {
      for (const entry of childrenNamed(camunda, kind)) {
        const mapping = camundaMapping(entry, kind, elementId, problems);
        if (mapping !== null) into.push(mapping);
      }
    }
  }
  return result;
}

function zeebeMapping(
  entry: ModdleNode,
  kind: string,
  elementId: string,
  problems: Problems,
): VariableMapping | null {
  const target = genericAttr(entry, 'target');
  if (target === null) {
    problems.add(elementId, `an ${kind} mapping of '${elementId}' has no target`);
    return null;
  }
  const source = genericAttr(entry, 'source');
  // Zeebe sets the target to null when the source is left empty.
  if (source === null) return { target, expression: 'null' };
  const expression = feelValue(source, { problems, elementId, what: `${kind} mapping '${target}'` });
  return expression === null ? null : { target, expression };
}

function camundaMapping(
  entry: ModdleNode,
  kind: string,
  elementId: string,
  problems: Problems,
): VariableMapping | null {
  const target = genericAttr(entry, 'name');
  if (target === null) {
    problems.add(elementId, `a camunda:${kind} of '${elementId}' has no name`);
    return null;
  }
  const site = { problems, elementId, what: `${kind} '${target}'` };
  const nested = entry.$children?.[0];
  if (nested !== undefined) {
    const format = genericAttr(nested, 'scriptFormat');
    if (localName(nested) === 'script' && format?.toLowerCase() === 'feel') {
      const expression = feelExpression(nested.$body ?? '', site);
      return expression === null ? null : { target, expression };
    }
    problems.add(
      elementId,
      `camunda:${localName(nested)} in ${kind} '${target}' of '${elementId}' is not supported`,
    );
    return null;
  }
  const body = entry.$body ?? '';
  if (body.trim() === '') return { target, expression: 'null' };
  const expression = feelValue(body, site);
  return expression === null ? null : { target, expression };
}
