import { BpmnModdle } from 'bpmn-moddle';
import { CORRECTED_PACKAGES } from '../engine/model/moddle-packages.js';
import {
  extensionsIn,
  genericAttr,
  isNode,
  list,
  localName,
  NS,
  type ModdleNode,
} from '../engine/model/moddle-node.js';

/** The form key prefix of a form embedded in the BPMN document (Camunda 8 Modeler's "embedded" forms). */
const EMBEDDED_PREFIX = 'camunda-forms:bpmn:';

/**
 * The form-js schema a user task's form key names, when the form is embedded in the deployed
 * document: `zeebe:formDefinition formKey="camunda-forms:bpmn:<id>"` on the task and
 * `<zeebe:userTaskForm id="<id>">{json}</zeebe:userTaskForm>` in a process's extension elements.
 * Null for any other key (linked forms, Camunda 7 form keys) or when the form is missing or not
 * a JSON object.
 */
export async function embeddedFormSchema(
  xml: string,
  formKey: string | null,
): Promise<Record<string, unknown> | null> {
  if (formKey === null || !formKey.startsWith(EMBEDDED_PREFIX)) return null;
  const formId = formKey.slice(EMBEDDED_PREFIX.length);
  // The document was parsed and checked at deploy time; this parse only looks for the form.
  const { rootElement } = await new BpmnModdle(CORRECTED_PACKAGES).fromXML(xml);
  const processes = list(rootElement as ModdleNode, 'rootElements').filter(
    (node) => node.$type === 'bpmn:Process',
  );
  for (const process of processes) {
    const form = extensionsIn(process, NS.zeebe).find(
      (node) => localName(node) === 'userTaskForm' && genericAttr(node, 'id') === formId,
    );
    if (form !== undefined) return parseSchema(form);
  }
  return null;
}

function parseSchema(form: ModdleNode): Record<string, unknown> | null {
  const body = typeof form.$body === 'string' ? form.$body : '';
  try {
    const schema: unknown = JSON.parse(body);
    return typeof schema === 'object' && schema !== null && !Array.isArray(schema) && !isNode(schema)
      ? (schema as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
