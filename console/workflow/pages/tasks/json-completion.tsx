import { useState } from 'preact/hooks';
import { CompletionButton } from './completion-button.js';

/**
 * Completion without a form: the task's variables as editable JSON, sent as the completion
 * variables once they parse as a JSON object.
 */
export function JsonCompletion(props: {
  variables: Record<string, unknown>;
  complete: (variables: Record<string, unknown>) => Promise<void>;
}) {
  const [text, setText] = useState(() => JSON.stringify(props.variables, null, 2));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const variables = parseObject(text);
    if (variables instanceof Error) return setError(variables);
    setBusy(true);
    try {
      await props.complete(variables);
    } catch (failure) {
      setError(failure as Error);
      setBusy(false);
    }
  };
  return (
    <form class="task-form" onSubmit={(event) => void submit(event)}>
      <label>
        Variables (JSON object)
        <textarea rows={10} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      </label>
      <CompletionButton busy={busy} error={error} />
    </form>
  );
}

function parseObject(text: string): Record<string, unknown> | Error {
  let value: unknown;
  try {
    value = JSON.parse(text === '' ? '{}' : text);
  } catch (failure) {
    return new Error(`The variables are not valid JSON: ${(failure as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return new Error('The variables must be a JSON object, like {"approved": true}');
  return value as Record<string, unknown>;
}
