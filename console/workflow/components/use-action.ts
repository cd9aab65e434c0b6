import { useState } from 'preact/hooks';

/** A user action's state: its last answer, its refusal (to show beside the control), and busy. */
export interface Action<T> {
  answer: T | undefined;
  error: Error | undefined;
  busy: boolean;
  run: (perform: () => Promise<T>) => void;
}

/** Runs one action at a time, keeping its answer or its error (a new run clears both). */
export function useAction<T>(): Action<T> {
  const [answer, setAnswer] = useState<T | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const run = (perform: () => Promise<T>) => {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    perform()
      .then(setAnswer, (failure: unknown) =>
        setError(failure instanceof Error ? failure : new Error(String(failure))),
      )
      .finally(() => setBusy(false));
  };
  return { answer, error, busy, run };
}
