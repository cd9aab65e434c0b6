import { createRequire } from 'node:module';

interface PackageType {
  name: string;
  properties?: { name: string; isAttr?: boolean; type: string }[];
}

/**
 * The BPMN meta-model of bpmn-moddle with one correction: its `GlobalScriptTask` declares `script`
 * as an attribute, while the BPMN 2.0 schema (Semantic.xsd, tGlobalScriptTask) makes it a
 * `<script>` child element, as on a script task. Without it a standard global script task fails to
 * parse ("unknown element <bpmn:Script>").
 */
export const CORRECTED_PACKAGES: Record<string, unknown> = { bpmn: correctedBpmnPackage() };

function correctedBpmnPackage(): unknown {
  const original = createRequire(import.meta.url)('bpmn-moddle/resources/bpmn/json/bpmn.json') as {
    types: PackageType[];
  };
  const copy = structuredClone(original);
  const globalScript = copy.types.find((type) => type.name === 'GlobalScriptTask');
  const script = globalScript?.properties?.find((property) => property.name === 'script');
  if (script !== undefined) delete script.isAttr;
  return copy;
}
