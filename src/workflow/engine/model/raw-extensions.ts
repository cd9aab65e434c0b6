import type { ModdleNode } from './moddle-node.js';
import { extensionsIn, localName, NS } from './moddle-node.js';
import type { RawXmlElement } from './types.js';

/** Converts a generic moddle element into plain data. */
export function toRawXml(node: ModdleNode): RawXmlElement {
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('$') || key === 'xmlns' || key.startsWith('xmlns:')) continue;
    if (typeof value === 'string') attributes[key] = value;
  }
  const text = typeof node.$body === 'string' && node.$body.trim() !== '' ? node.$body : null;
  return { name: localName(node), attributes, children: (node.$children ?? []).map(toRawXml), text };
}

/** The weft-namespace extension elements of a BPMN element, as plain data. */
export function weftExtensions(node: ModdleNode): RawXmlElement[] {
  return extensionsIn(node, NS.weft).map(toRawXml);
}
