import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../shared/components/error-notice.js';
import { logOut } from '../session.js';

/** "Log out": ends a cookie session on the service too; a refusal shows beside the button. */
export function LogoutButton() {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(undefined);
          logOut()
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            )
            .finally(() => setBusy(false));
        }}
      >
        Log out
      </button>
      <ErrorNotice error={error} />
    </>
  );
}
