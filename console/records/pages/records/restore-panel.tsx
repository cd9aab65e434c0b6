import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { api } from '../../session.js';

/** Restores the record to its state at an instant, with a reason (`POST …/restore`). */
export function RestorePanel(props: { base: string; instant: string; onRestored: () => void }) {
  const [at, setAt] = useState(props.instant);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<number | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setAt(props.instant), [props.instant]);
  return (
    <section aria-labelledby="restore-heading">
      <h2 id="restore-heading">Restore</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          setDone(undefined);
          api
            .post<{ data: { version: number } }>(`${props.base}/restore`, { at, reason })
            .then(
              (answer) => {
                setDone(answer.data.version);
                props.onRestored();
              },
              (failure: Error) => setError(failure),
            )
            .finally(() => setBusy(false));
        }}
      >
        <label>
          Restore to instant
          <input
            value={at}
            placeholder="2026-01-31T12:00:00Z"
            onInput={(e) => setAt(e.currentTarget.value)}
          />
        </label>
        <label>
          Reason
          <input value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
        <button type="submit" class="danger" disabled={busy}>
          Restore the record
        </button>
        <ErrorNotice error={error} />
        {done !== undefined ? (
          <p class="notice" role="status">
            Restored: the record is now at version {done}.
          </p>
        ) : null}
      </form>
    </section>
  );
}
