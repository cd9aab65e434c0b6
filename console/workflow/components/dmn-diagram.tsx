import type DmnJsViewer from 'dmn-js/lib/Viewer';
import type { DmnView } from 'dmn-js/lib/Viewer';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../shared/components/error-notice.js';

const viewLabels: Record<DmnView['type'], string> = {
  drd: 'Requirements diagram',
  decisionTable: 'Decision table',
  literalExpression: 'Literal expression',
  boxedExpression: 'Boxed expression',
};

/**
 * A DMN file drawn by dmn-js's Viewer (the bpmn.io watermark stays, as its licence asks), opened on
 * the decision `decisionKey`, with a switch to the requirements diagram when the file has one. The
 * rules at `highlightedRules` (0-based) of that decision's table are marked. dmn-js is loaded on
 * first use, so other pages do not download it.
 */
export function DmnDiagram(props: {
  xml: string;
  decisionKey: string;
  highlightedRules?: number[];
  label: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const viewer = useRef<DmnJsViewer | null>(null);
  const [views, setViews] = useState<DmnView[]>([]);
  const [active, setActive] = useState<DmnView | undefined>();
  const [error, setError] = useState<Error | undefined>();

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      try {
        const { DmnViewer } = await import('./dmn-viewer.js');
        if (cancelled || !container.current) return;
        const created = new DmnViewer({ container: container.current });
        viewer.current = created;
        // The diagram's drill-down icons switch views too, not only the buttons.
        created.on('views.changed', (event) => setActive(event.activeView));
        await created.importXML(props.xml);
        if (cancelled) return;
        const shown = created
          .getViews()
          .filter((view) => view.type === 'drd' || view.element.id === props.decisionKey);
        const own = shown.find((view) => view.element.id === props.decisionKey);
        if (own) await created.open(own);
        if (cancelled) return;
        setViews(shown);
      } catch (failure) {
        if (!cancelled) setError(failure instanceof Error ? failure : new Error(String(failure)));
      }
    })();
    return () => {
      cancelled = true;
      viewer.current?.destroy();
      viewer.current = null;
    };
  }, [props.xml, props.decisionKey]);

  useEffect(() => {
    const root = container.current;
    if (!root || active?.type !== 'decisionTable') return;
    const rows = [...root.querySelectorAll('tbody tr')];
    const marked = (props.highlightedRules ?? []).flatMap((index) => rows[index] ?? []);
    for (const row of marked) row.classList.add('weft-matched-rule');
    return () => {
      for (const row of marked) row.classList.remove('weft-matched-rule');
    };
  }, [active, props.highlightedRules]);

  const show = (view: DmnView) => {
    const current = viewer.current;
    if (!current) return;
    current
      .open(view)
      .catch((failure: unknown) => setError(failure instanceof Error ? failure : new Error(String(failure))));
  };

  return (
    <>
      <ErrorNotice error={error} />
      {views.length > 1 ? (
        <div class="view-switch" role="group" aria-label="View">
          {views.map((view) => (
            <button
              key={`${view.type}-${view.element.id}`}
              type="button"
              aria-pressed={active?.type === view.type && active.element.id === view.element.id}
              onClick={() => show(view)}
            >
              {viewLabels[view.type]}
            </button>
          ))}
        </div>
      ) : null}
      <div
        class="dmn-diagram"
        ref={container}
        role="region"
        aria-label={props.label}
        data-view={active?.type ?? ''}
      />
    </>
  );
}
