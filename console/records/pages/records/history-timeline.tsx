import { displayValue } from '../../schema-description.js';

/** A history event as `GET /{path}/{id}/history` lists it. */
export interface HistoryEvent {
  event_id: number;
  timestamp: string;
  actor: string;
  operation: string;
  old_value: Record<string, unknown> | null;
  new_value: Record<string, unknown> | null;
  reason?: string;
}

function changes(event: HistoryEvent): string {
  const after = event.new_value ?? {};
  // A CREATE lists every field: the empty ones say nothing.
  return Object.keys(after)
    .filter((field) => after[field] !== null || event.old_value !== null)
    .map((field) =>
      event.old_value && field in event.old_value
        ? `${field}: ${displayValue(event.old_value[field])} → ${displayValue(after[field])}`
        : `${field}: ${displayValue(after[field])}`,
    )
    .join('; ');
}

/** The events of a record, oldest first; each can be picked as the instant of the panels below. */
export function HistoryTimeline(props: { events: HistoryEvent[]; onPick: (instant: string) => void }) {
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Operation</th>
              <th scope="col">Changes</th>
              <th scope="col">Reason</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.events.map((event) => (
              <tr key={event.event_id}>
                <td>{event.event_id}</td>
                <td>
                  <time dateTime={event.timestamp}>{event.timestamp}</time>
                </td>
                <td>{event.actor}</td>
                <td>{event.operation}</td>
                <td class="changes">{changes(event)}</td>
                <td>{event.reason ?? ''}</td>
                <td>
                  <button type="button" onClick={() => props.onPick(event.timestamp)}>
                    Use instant #{event.event_id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
