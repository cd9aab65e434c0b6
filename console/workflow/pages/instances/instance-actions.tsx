import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';

/** A button that runs an API call, shows the API's refusal beside it, and reports success. */
export function ActionButton(props: {
  label: string;
  run: () => Promise<unknown>;
  onDone: () => void;
  danger?: boolean;
  confirm?: string;
}) {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <span class="action">
      <button
        type="button"
        class={props.danger ? 'danger' : undefined}
        disabled={busy}
        onClick={() => {
          if (props.confirm && !window.confirm(props.confirm)) return;
          setBusy(true);
          setError(undefined);
          props
            .run()
            .then(props.onDone)
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            )
            .finally(() => setBusy(false));
        }}
      >
        {props.label}
      </button>
      <ErrorNotice error={error} />
    </span>
  );
}
