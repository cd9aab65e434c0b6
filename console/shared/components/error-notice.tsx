import { ApiError } from '../api.js';

/** The API's error message, shown beside the control that caused it (`role="alert"`). */
export function ErrorNotice({ error }: { error: Error | undefined | null }) {
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <p class="error" role="alert">
      {error.message}
      {code && code !== String((error as ApiError).status) ? <span class="code"> ({code})</span> : null}
    </p>
  );
}
