import { useEffect, useState } from 'preact/hooks';
import { query } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { api } from '../../session.js';
import { StateTable } from './state-table.js';

/** The record as it was at an instant (`GET …/history?at=`). `instant` pre-fills the field. */
export function AsOfPanel({ base, instant }: { base: string; instant: string }) {
  const [at, setAt] = useState(instant);
  const [state, setState] = useState<{ at: string; record: Record<string, unknown> } | undefined>();
  const [error, setError] = useState<Error | undefined>();
  useEffect(() => setAt(instant), [instant]);
  return (
    <section aria-labelledby="as-of-heading">
      <h2 id="as-of-heading">As of an instant</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setError(undefined);
          api.get<{ data: Record<string, unknown> }>(`${base}/history${query({ at })}`).then(
            (answer) => setState({ at, record: answer.data }),
            (failure: Error) => {
              setState(undefined);
              setError(failure);
            },
          );
        }}
      >
        <label>
          As of (ISO 8601 instant)
          <input
            value={at}
            placeholder="2026-01-31T12:00:00Z"
            onInput={(e) => setAt(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Show the record as of then</button>
        <ErrorNotice error={error} />
      </form>
      {state ? <StateTable caption={`The record as of ${state.at}`} state={state.record} /> : null}
    </section>
  );
}
