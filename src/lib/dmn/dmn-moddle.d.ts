// dmn-moddle ships no type declarations; this covers the part the reader uses.
declare module 'dmn-moddle' {
  export class DmnModdle {
    constructor(packages?: Record<string, unknown>, options?: Record<string, unknown>);
    fromXML(xml: string, typeName: string, options?: Record<string, unknown>): Promise<unknown>;
  }
}
