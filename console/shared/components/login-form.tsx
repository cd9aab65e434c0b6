import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice } from './error-notice.js';

/** A login form: its fields, a submit button, and the API's refusal beside it. */
export function LoginForm(props: {
  title: string;
  onSubmit: (form: FormData) => Promise<void>;
  children: ComponentChildren;
}) {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="login">
      <form
        aria-label={props.title}
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          props
            .onSubmit(new FormData(event.currentTarget))
            .catch((failure: unknown) =>
              setError(failure instanceof Error ? failure : new Error(String(failure))),
            )
            .finally(() => setBusy(false));
        }}
      >
        <h1>{props.title}</h1>
        {props.children}
        <button type="submit" disabled={busy}>
          Log in
        </button>
        <ErrorNotice error={error} />
      </form>
    </main>
  );
}
