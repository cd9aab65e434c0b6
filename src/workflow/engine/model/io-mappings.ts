import { feelExpression, feelValue, isJuel, type ExpressionSite } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { childrenNamed, extension, genericAttr, localName, NS } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { MappingValue, VariableMapping } from './types.js';

/** Input and output mappings of an element. */
export interface Mappings {
  inputs: VariableMapping[];
  outputs: VariableMapping[];
}

/**
 * Reads Zeebe `zeebe:ioMapping` (input/output with source and target) and Camunda
 * `camunda:inputOutput` (inputParameter/outputParameter with a name and a text value, a FEEL
 * script, or a `camunda:list` / `camunda:map` of such values) into mappings. A source starting
 * with `=` is FEEL; text with `${…}` is JUEL; other text is a constant string.
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
  const expression = camundaValue(entry, { problems, elementId, what: `${kind} '${target}'` });
  return expression === null ? null : { target, expression };
}

/**
 * The value of a parameter, a list item or a map entry: its text (a constant, JUEL, or FEEL after
 * `=`; empty is null), or the one nested `camunda:script` (FEEL), `camunda:list` or `camunda:map`.
 */
function camundaValue(node: ModdleNode, site: ExpressionSite): MappingValue | null {
  const nested = node.$children?.[0];
  if (nested !== undefined) return nestedValue(nested, site);
  const body = node.$body ?? '';
  if (body.trim() === '') return 'null';
  return feelValue(body, site);
}

function nestedValue(node: ModdleNode, site: ExpressionSite): MappingValue | null {
  const name = localName(node);
  if (name === 'script' && genericAttr(node, 'scriptFormat')?.toLowerCase() === 'feel') {
    return feelExpression(node.$body ?? '', site);
  }
  if (name === 'list') {
    // Camunda writes items as <camunda:value> (text or one nested element), or nests a list, a map
    // or a script directly.
    const items = (node.$children ?? []).map((item) =>
      localName(item) === 'value' ? camundaValue(item, site) : nestedValue(item, site),
    );
    return items.every((item) => item !== null) ? { list: items } : null;
  }
  if (name === 'map') {
    const entries = (node.$children ?? []).map((item) => mapEntry(item, site));
    return entries.every((item) => item !== null) ? { map: entries } : null;
  }
  site.problems.add(
    site.elementId,
    `camunda:${name} in ${site.what} of '${site.elementId}' is not supported`,
  );
  return null;
}

function mapEntry(node: ModdleNode, site: ExpressionSite): { key: string; value: MappingValue } | null {
  const key = genericAttr(node, 'key');
  if (localName(node) !== 'entry' || key === null) {
    site.problems.add(
      site.elementId,
      `a camunda:map in ${site.what} of '${site.elementId}' holds a camunda:${localName(node)} without a key; write <camunda:entry key="…">`,
    );
    return null;
  }
  if (isJuel(key) || key.trim().startsWith('=')) {
    site.problems.add(
      site.elementId,
      `the key '${key}' of a camunda:entry in ${site.what} of '${site.elementId}' is an expression, which is not supported: write a constant key`,
    );
    return null;
  }
  const value = camundaValue(node, site);
  return value === null ? null : { key, value };
}
