const diNamespace = 'http://www.omg.org/spec/BPMN/20100524/DI';

/**
 * Whether the XML parses and carries diagram shapes, so bpmn-js can draw it. A model without its
 * BPMNDiagram section (written by hand or by a generator) is valid and deployable, but has no layout.
 */
export function hasDiagramLayout(xml: string): boolean {
  const document = new DOMParser().parseFromString(xml, 'application/xml');
  if (document.getElementsByTagName('parsererror').length > 0) return false;
  return document.getElementsByTagNameNS(diNamespace, 'BPMNShape').length > 0;
}
