import type { HistoryEntry } from './model.js';

/** The instance's history, oldest first, as an ordered list of what happened where. */
export function HistoryTimeline({ history }: { history: HistoryEntry[] }) {
  if (history.length === 0) return <p class="muted">No history yet.</p>;
  return (
    <ol class="timeline" aria-label="History">
      {history.map((entry) => (
        <li key={entry.id}>
          <time dateTime={entry.at}>{new Date(entry.at).toLocaleTimeString()}</time>{' '}
          <strong>{entry.kind}</strong> <code>{entry.element_id}</code>{' '}
          <span class="muted">{entry.element_type}</span>
          {typeof entry.data.message === 'string' ? <span class="muted"> — {entry.data.message}</span> : null}
        </li>
      ))}
    </ol>
  );
}
