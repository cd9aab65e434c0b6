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
      /** For an unresolved reference: the property, the element holding it and the missing id. */
      warnings: { message: string; property?: string; element?: unknown; value?: unknown }[];
    }>;
  }
}
