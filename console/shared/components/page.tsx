import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** A page's heading and document title. */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · weft`;
  }, [props.title]);
  return (
    <section class="page">
      <div class="page-head">
        <h1>{props.title}</h1>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}

/** Shown while the first load of a page is under way. */
export function Loading() {
  return (
    <p class="loading" aria-live="polite">
      Loading…
    </p>
  );
}
