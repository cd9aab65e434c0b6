import { createRequire } from 'node:module';
import { DmnModdle } from 'dmn-moddle';
import { DMN15_BOXED_TYPES } from './dmn15-boxed-types.js';

/** An element of the dmn-moddle tree, read through the helpers below. */
export interface ModdleNode {
  readonly $type: string;
  readonly [key: string]: unknown;
}

/** What reading a DMN document with dmn-moddle gave. */
export interface ModdleReadResult {
  root: ModdleNode | null;
  warnings: string[];
}

interface RootHandler {
  element?: ModdleNode;
  context?: { warnings?: { message?: string }[] };
}

// dmn-moddle's DMN 1.3 package with the boxed expressions of DMN 1.4/1.5 added.
const dmn13 = createRequire(import.meta.url)('dmn-moddle/resources/dmn/json/dmn13.json') as {
  types: unknown[];
};
const moddle = new DmnModdle({ dmn: { ...dmn13, types: [...dmn13.types, ...DMN15_BOXED_TYPES] } });

/**
 * Reads a DMN 1.3 document synchronously. dmn-moddle's `fromXML` parses inside the executor of the
 * promise it returns, so the work is done when it returns; the `handler` reader option (reader options
 * become reader properties) lets us keep the root handler and read its element and warnings directly.
 */
export function readDmnXml(xml: string): ModdleReadResult {
  let handler: RootHandler | null = null;
  const promise = moddle.fromXML(xml, 'dmn:Definitions', {
    handler(this: { handler: unknown }, name: string): RootHandler {
      const original = (Object.getPrototypeOf(this) as { handler: (n: string) => RootHandler }).handler;
      handler = original.call(this, name);
      return handler;
    },
  });
  // The outcome is read from the handler; the promise's own rejection is expected and ignored.
  promise.catch(() => undefined);
  const captured = handler as RootHandler | null;
  const warnings = (captured?.context?.warnings ?? []).map((w) => w.message ?? 'unreadable XML');
  const root = captured?.element ?? null;
  if (root === null || root.$type !== 'dmn:Definitions') {
    return { root: null, warnings: warnings.length > 0 ? warnings : ['not a DMN definitions document'] };
  }
  return { root, warnings };
}

/** A string property of a moddle element, or null. */
export function str(node: ModdleNode | null | undefined, key: string): string | null {
  const value = node?.[key];
  return typeof value === 'string' ? value : null;
}

/** A child element of a moddle element, or null. */
export function child(node: ModdleNode | null | undefined, key: string): ModdleNode | null {
  const value = node?.[key];
  return isNode(value) ? value : null;
}

/** A list of child elements of a moddle element (empty when absent). */
export function children(node: ModdleNode | null | undefined, key: string): ModdleNode[] {
  const value = node?.[key];
  return Array.isArray(value) ? value.filter(isNode) : [];
}

/**
 * An attribute of a foreign namespace (one dmn-moddle does not know, such as Camunda's) whatever
 * prefix the document gives it; null when absent.
 */
export function foreignAttribute(node: ModdleNode, namespaceUri: string, localName: string): string | null {
  const attrs = attributesOf(node);
  for (const [key, value] of Object.entries(attrs)) {
    const colon = key.indexOf(':');
    if (colon < 0 || key.slice(colon + 1) !== localName || typeof value !== 'string') continue;
    const prefix = key.slice(0, colon);
    if (prefix !== 'xmlns' && namespaceOfPrefix(node, prefix) === namespaceUri) return value;
  }
  return null;
}

function attributesOf(node: ModdleNode): Record<string, unknown> {
  const attrs = node.$attrs;
  return typeof attrs === 'object' && attrs !== null ? (attrs as Record<string, unknown>) : {};
}

// The namespace a prefix is declared for on the element or its nearest ancestor.
function namespaceOfPrefix(node: ModdleNode, prefix: string): string | null {
  for (let current: unknown = node; isNode(current); current = current.$parent) {
    const uri = attributesOf(current)[`xmlns:${prefix}`];
    if (typeof uri === 'string') return uri;
  }
  return null;
}

function isNode(value: unknown): value is ModdleNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as { $type?: unknown }).$type === 'string'
  );
}
