// dmn-js ships no type declarations; the console uses only the viewer's import, views and destroy.
declare module 'dmn-js/lib/Viewer' {
  /** One view of a DMN file: its requirements diagram or one decision's logic. */
  export interface DmnView {
    id: string;
    type: 'drd' | 'decisionTable' | 'literalExpression' | 'boxedExpression';
    element: { id: string; name?: string };
  }
  /** dmn-js's viewer: every view of a file, one shown at a time. */
  export default class Viewer {
    constructor(options: { container: HTMLElement });
    importXML(xml: string): Promise<{ warnings: unknown[] }>;
    getViews(): DmnView[];
    getActiveView(): DmnView | undefined;
    open(view: DmnView): Promise<{ warnings: unknown[] }>;
    on(event: 'views.changed', callback: (event: { activeView: DmnView | undefined }) => void): void;
    destroy(): void;
  }
}
