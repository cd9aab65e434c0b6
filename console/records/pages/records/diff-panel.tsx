import { useState } from 'preact/hooks';
import { query } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { displayValue } from '../../schema-description.js';
import { api } from '../../session.js';
import type { HistoryEvent } from './history-timeline.js';

interface Diff {
  added: Record<string, unknown>;
  changed: Record<string, { from: unknown; to: unknown }>;
  removed: Record<string, unknown>;
}

/** The differences between the record at two instants of its timeline (`GET …/diff?from&to`). */
export function DiffPanel({ base, events }: { base: string; events: HistoryEvent[] }) {
  const instants = events.map((event) => event.timestamp);
  const [from, setFrom] = useState(instants[0] ?? '');
  const [to, setTo] = useState(instants[instants.length - 1] ?? '');
  const [diff, setDiff] = useState<Diff | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const choice = (label: string, value: string, set: (value: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set(e.currentTarget.value)}>
        {events.map((event) => (
          <option key={event.event_id} value={event.timestamp}>
            #{event.event_id} {event.operation} {event.timestamp}
          </option>
        ))}
      </select>
    </label>
  );
  const rows: [string, string, string, string][] = diff
    ? [
        ...Object.entries(diff.added).map(([f, v]): [string, string, string, string] => [
          f,
          'added',
          '',
          displayValue(v),
        ]),
        ...Object.entries(diff.changed).map(([f, c]): [string, string, string, string] => [
          f,
          'changed',
          displayValue(c.from),
          displayValue(c.to),
        ]),
        ...Object.entries(diff.removed).map(([f, v]): [string, string, string, string] => [
          f,
          'removed',
          displayValue(v),
          '',
        ]),
      ]
    : [];
  return (
    <section aria-labelledby="diff-heading">
      <h2 id="diff-heading">Differences between two instants</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setError(undefined);
          api.get<{ data: Diff }>(`${base}/diff${query({ from, to })}`).then(
            (answer) => setDiff(answer.data),
            (failure: Error) => {
              setDiff(undefined);
              setError(failure);
            },
          );
        }}
      >
        {choice('From', from, setFrom)}
        {choice('To', to, setTo)}
        <button type="submit">Compare</button>
        <ErrorNotice error={error} />
      </form>
      {diff ? (
        <div class="table-wrap">
          <table>
            <caption>Differences</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Change</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 ? (
                <tr>
                  <td colSpan={4}>No differences.</td>
                </tr>
              ) : null}
              {rows.map(([field, kind, before, after]) => (
                <tr key={field}>
                  <th scope="row">{field}</th>
                  <td>{kind}</td>
                  <td>{before}</td>
                  <td>{after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
