/**
 * A typed view of the objects bpmn-moddle builds, and small readers for them. BPMN properties are
 * read by name; vendor attributes (`camunda:*`, and `zeebe:*` elements) stay where moddle puts
 * unknown content — `$attrs` and generic extension elements — and are matched by namespace URI, so
 * no vendor descriptor is needed and any prefix works.
 */
export interface ModdleNode {
  $type: string;
  $attrs?: Record<string, string>;
  $parent?: ModdleNode;
  $children?: ModdleNode[];
  $body?: string;
  $descriptor?: { ns?: { prefix?: string; localName?: string; uri?: string } };
  [key: string]: unknown;
}

/** Namespace URIs of the vendor extensions we read. */
export const NS = {
  bpmn: 'http://www.omg.org/spec/BPMN/20100524/MODEL',
  camunda: 'http://camunda.org/schema/1.0/bpmn',
  zeebe: 'http://camunda.org/schema/zeebe/1.0',
  weft: 'https://weft.dev/schema/bpmn/1.0',
} as const;

/** True for anything moddle produced (an object with a `$type`). */
export function isNode(value: unknown): value is ModdleNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as { $type?: unknown }).$type === 'string'
  );
}

/** A string property, or null when absent or empty. */
export function str(node: ModdleNode, key: string): string | null {
  const value = node[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A boolean property with a fallback. */
export function bool(node: ModdleNode, key: string, fallback: boolean): boolean {
  const value = node[key];
  return typeof value === 'boolean' ? value : fallback;
}

/** A single child or reference property. */
export function child(node: ModdleNode, key: string): ModdleNode | null {
  const value = node[key];
  return isNode(value) ? value : null;
}

/** A list property (flowElements, eventDefinitions, …); an absent list is empty. */
export function list(node: ModdleNode, key: string): ModdleNode[] {
  const value = node[key];
  return Array.isArray(value) ? value.filter(isNode) : [];
}

/** The BPMN local type name: `bpmn:ServiceTask` → `serviceTask`. */
export function bpmnTypeName(node: ModdleNode): string {
  const local = node.$type.startsWith('bpmn:') ? node.$type.slice(5) : node.$type;
  return local.charAt(0).toLowerCase() + local.slice(1);
}

/** Text of an expression child (`conditionExpression`, `timeDuration`, …), trimmed, or null. */
export function bodyOf(node: ModdleNode | null): string | null {
  if (node === null) return null;
  const body = typeof node.body === 'string' ? node.body : node.$body;
  const text = typeof body === 'string' ? body.trim() : '';
  return text === '' ? null : text;
}

/** The element's local name without prefix. */
export function localName(node: ModdleNode): string {
  const name = node.$descriptor?.ns?.localName;
  if (name !== undefined) return name;
  const colon = node.$type.indexOf(':');
  return colon < 0 ? node.$type : node.$type.slice(colon + 1);
}

/** Resolves a prefix by walking up the `xmlns:*` declarations moddle keeps in `$attrs`. */
function namespaceOfPrefix(node: ModdleNode | undefined, prefix: string): string | null {
  for (let current = node; current !== undefined; current = current.$parent) {
    const uri = current.$attrs?.[`xmlns:${prefix}`];
    if (uri !== undefined) return uri;
  }
  return null;
}

/** Namespace URI of an element (generic extension elements included). */
export function namespaceOf(node: ModdleNode): string | null {
  const uri = node.$descriptor?.ns?.uri;
  if (uri !== undefined) return uri;
  const colon = node.$type.indexOf(':');
  return colon < 0 ? null : namespaceOfPrefix(node, node.$type.slice(0, colon));
}

/** A namespaced attribute (e.g. `camunda:topic`) whatever prefix the document uses; null when absent. */
export function nsAttr(node: ModdleNode, uri: string, name: string): string | null {
  const attrs = node.$attrs;
  if (attrs === undefined) return null;
  for (const [key, value] of Object.entries(attrs)) {
    const colon = key.indexOf(':');
    if (colon < 0 || key.slice(colon + 1) !== name) continue;
    const prefix = key.slice(0, colon);
    if (prefix !== 'xmlns' && namespaceOfPrefix(node, prefix) === uri) return value === '' ? null : value;
  }
  return null;
}

/** Extension elements of the given namespace directly under `<extensionElements>`. */
export function extensionsIn(node: ModdleNode, uri: string): ModdleNode[] {
  const container = child(node, 'extensionElements');
  if (container === null) return [];
  return list(container, 'values').filter((value) => namespaceOf(value) === uri);
}

/** The first extension element of a namespace with the given local name. */
export function extension(node: ModdleNode, uri: string, name: string): ModdleNode | null {
  return extensionsIn(node, uri).find((value) => localName(value) === name) ?? null;
}

/** Children of a generic element with the given local name. */
export function childrenNamed(node: ModdleNode, name: string): ModdleNode[] {
  return (node.$children ?? []).filter((value) => localName(value) === name);
}

/** A plain attribute of a generic (unknown-namespace) element. */
export function genericAttr(node: ModdleNode, name: string): string | null {
  const value = node[name];
  return typeof value === 'string' && value !== '' ? value : null;
}
