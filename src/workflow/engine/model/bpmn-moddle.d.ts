// bpmn-moddle ships typings only for its meta-model (`bpmn-moddle/types`), not for its entry point.
declare module 'bpmn-moddle' {
  /** Parser and serialiser for BPMN 2.0 XML. */
  export class BpmnModdle {
    constructor(packages?: Record<string, unknown>, options?: Record<string, unknown>);
    fromXML(
      xml: string,
      typeName?: string,
      options?: Record<string, unknown>,
    ): Promise<{
      rootElement: unknown;
      elementsById: Record<string, unknown>;
      /** An unresolved reference names the element holding it, the property and the missing id. */
      warnings: { message: string; element?: unknown; property?: string; value?: string }[];
    }>;
  }
}
