import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../shared/components/error-notice.js';

/** A badge on an element: a count of tokens or incidents, or a short label. */
export interface DiagramOverlay {
  elementId: string;
  text: string;
  kind: 'tokens' | 'incidents' | 'note';
  /** Spoken by screen readers and shown on hover. */
  title: string;
}

/** What the diagram shows on top of the model. */
export interface DiagramDecorations {
  overlays?: DiagramOverlay[];
  /** CSS classes set on elements: `active` (a token waits there), `taken` (the path so far), `problem`. */
  markers?: { elementId: string; marker: 'active' | 'taken' | 'problem' }[];
}

interface Canvas {
  zoom(level: string | number): void;
  addMarker(id: string, marker: string): void;
  removeMarker(id: string, marker: string): void;
}
interface Overlays {
  add(id: string, type: string, overlay: { position: Record<string, number>; html: HTMLElement }): string;
  remove(filter: { type: string }): void;
}
interface EventBus {
  on(event: string, callback: (event: { element: { id: string; type: string } }) => void): void;
}
interface ElementRegistry {
  get(id: string): unknown;
}
interface Viewer {
  importXML(xml: string): Promise<{ warnings: unknown[] }>;
  get(name: 'canvas'): Canvas;
  get(name: 'overlays'): Overlays;
  get(name: 'eventBus'): EventBus;
  get(name: 'elementRegistry'): ElementRegistry;
  destroy(): void;
}

/**
 * A BPMN diagram drawn by bpmn-js's NavigatedViewer (pan and zoom; the bpmn.io watermark stays, as
 * its licence asks), with overlays and markers, and a callback when an element is clicked. bpmn-js
 * is loaded on first use, so pages without a diagram do not download it.
 */
export function BpmnDiagram(props: {
  xml: string;
  decorations?: DiagramDecorations;
  onElementClick?: (elementId: string) => void;
  label: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const viewer = useRef<Viewer | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const [ready, setReady] = useState(0);
  const onClick = useRef(props.onElementClick);
  onClick.current = props.onElementClick;

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      try {
        const { NavigatedViewer } = await import('./bpmn-viewer.js');
        if (cancelled || !container.current) return;
        const created = new NavigatedViewer({ container: container.current }) as unknown as Viewer;
        viewer.current = created;
        await created.importXML(props.xml);
        if (cancelled) return;
        created.get('canvas').zoom('fit-viewport');
        created.get('eventBus').on('element.click', (event) => {
          if (event.element.type !== 'bpmn:Process') onClick.current?.(event.element.id);
        });
        setReady((n) => n + 1);
      } catch (failure) {
        if (!cancelled) setError(failure instanceof Error ? failure : new Error(String(failure)));
      }
    })();
    return () => {
      cancelled = true;
      viewer.current?.destroy();
      viewer.current = null;
    };
  }, [props.xml]);

  useEffect(() => {
    const current = viewer.current;
    if (!current || ready === 0) return;
    const registry = current.get('elementRegistry');
    const canvas = current.get('canvas');
    const overlays = current.get('overlays');
    overlays.remove({ type: 'weft' });
    const applied: { id: string; marker: string }[] = [];
    for (const { elementId, marker } of props.decorations?.markers ?? []) {
      if (!registry.get(elementId)) continue;
      canvas.addMarker(elementId, `weft-${marker}`);
      applied.push({ id: elementId, marker: `weft-${marker}` });
    }
    for (const overlay of props.decorations?.overlays ?? []) {
      if (!registry.get(overlay.elementId)) continue;
      const badge = document.createElement('span');
      badge.className = `weft-overlay weft-overlay-${overlay.kind}`;
      badge.textContent = overlay.text;
      badge.title = overlay.title;
      badge.setAttribute('aria-label', overlay.title);
      badge.dataset.elementId = overlay.elementId;
      const position: Record<string, number> =
        overlay.kind === 'incidents' ? { top: -10, right: 10 } : { bottom: 10, left: -8 };
      overlays.add(overlay.elementId, 'weft', { position, html: badge });
    }
    return () => {
      for (const { id, marker } of applied) canvas.removeMarker(id, marker);
    };
  }, [ready, props.decorations]);

  return (
    <>
      <ErrorNotice error={error} />
      <div class="diagram" ref={container} role="group" aria-label={props.label} data-ready={ready > 0} />
    </>
  );
}
