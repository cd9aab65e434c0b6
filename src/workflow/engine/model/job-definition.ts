import { staticValue } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { childrenNamed, extension, genericAttr, nsAttr, NS } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { JobDefinition } from './types.js';

/**
 * Reads the external-worker job of a task or throw event: Zeebe `zeebe:taskDefinition type retries`
 * (checked first, as the newer format) or Camunda `camunda:type="external" camunda:topic`. Returns
 * null when the element declares no job; records a problem when it declares one without a topic.
 */
export function readJob(node: ModdleNode, elementId: string, problems: Problems): JobDefinition | null {
  const site = { problems, elementId, what: 'job type' };
  const zeebe = extension(node, NS.zeebe, 'taskDefinition');
  if (zeebe !== null) {
    const type = genericAttr(zeebe, 'type');
    if (type === null) {
      problems.add(elementId, `zeebe:taskDefinition of '${elementId}' has no type`);
      return null;
    }
    const topic = staticValue(type, site);
    if (topic === null) return null;
    return { topic, retries: genericAttr(zeebe, 'retries'), headers: readHeaders(node) };
  }
  if (nsAttr(node, NS.camunda, 'type') === 'external') {
    const raw = nsAttr(node, NS.camunda, 'topic');
    if (raw === null) {
      problems.add(elementId, `'${elementId}' is camunda:type="external" but has no camunda:topic`);
      return null;
    }
    const topic = staticValue(raw, { ...site, what: 'camunda:topic' });
    return topic === null ? null : { topic, retries: null, headers: readHeaders(node) };
  }
  return null;
}

function readHeaders(node: ModdleNode): Record<string, string> {
  const headers: Record<string, string> = {};
  const container = extension(node, NS.zeebe, 'taskHeaders');
  if (container === null) return headers;
  for (const header of childrenNamed(container, 'header')) {
    const key = genericAttr(header, 'key');
    if (key !== null) headers[key] = genericAttr(header, 'value') ?? '';
  }
  return headers;
}
