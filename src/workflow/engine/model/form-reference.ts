import { isJuel } from './expressions.js';
import type { ModdleNode } from './moddle-node.js';
import { nsAttr, NS } from './moddle-node.js';
import type { Problems } from './problems.js';
import type { FormReference } from './types.js';

const BINDINGS: readonly string[] = ['latest', 'deployment', 'version'];

/**
 * Camunda 7's reference to a Camunda Form on a user task or start event: `camunda:formRef` (the
 * form's key, the `id` of its JSON), `camunda:formRefBinding` (`latest` when absent, `deployment`,
 * `version`) and, for `version`, `camunda:formRefVersion`. Null when the element has no
 * `camunda:formRef`. The reference is literal: an expression in it is refused (weft picks the form
 * when the task is read, where no variables are evaluated), as are an unknown binding, a missing or
 * non-positive version, and `camunda:formKey` on the same element (Camunda allows one of the two).
 */
export function readFormReference(
  node: ModdleNode,
  what: string,
  id: string,
  problems: Problems,
): FormReference | null {
  const formKey = nsAttr(node, NS.camunda, 'formRef');
  const binding = nsAttr(node, NS.camunda, 'formRefBinding');
  const version = nsAttr(node, NS.camunda, 'formRefVersion');
  if (formKey === null) {
    if (binding !== null || version !== null)
      problems.add(
        id,
        `${what} '${id}' has camunda:formRefBinding or camunda:formRefVersion without camunda:formRef`,
      );
    return null;
  }
  const before = problems.list.length;
  if (nsAttr(node, NS.camunda, 'formKey') !== null)
    problems.add(id, `${what} '${id}' has both camunda:formKey and camunda:formRef: use one of them`);
  for (const [name, value] of [
    ['formRef', formKey],
    ['formRefBinding', binding],
    ['formRefVersion', version],
  ] as const)
    if (value !== null && isJuel(value))
      problems.add(
        id,
        `camunda:${name} of ${what} '${id}' is the expression '${value}', which weft does not evaluate: write the form's ${name === 'formRef' ? 'id' : name === 'formRefBinding' ? 'binding' : 'version'} as text`,
      );
  const chosen = binding ?? 'latest';
  if (!BINDINGS.includes(chosen))
    problems.add(
      id,
      `camunda:formRefBinding of ${what} '${id}' is '${chosen}': it must be latest, deployment or version`,
    );
  let number: number | null = null;
  if (chosen === 'version') {
    if (version === null)
      problems.add(id, `${what} '${id}' has camunda:formRefBinding="version" without camunda:formRefVersion`);
    else if (!/^\s*[1-9]\d{0,8}\s*$/.test(version))
      problems.add(
        id,
        `camunda:formRefVersion of ${what} '${id}' is '${version}': it must be a positive whole number`,
      );
    else number = Number(version);
  }
  if (problems.list.length > before) return null;
  return { formKey: formKey.trim(), binding: chosen as FormReference['binding'], version: number };
}
