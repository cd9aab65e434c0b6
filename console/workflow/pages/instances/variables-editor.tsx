import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { api } from '../../session.js';

/** The JSON text as a variables object, or why it is not one. */
export function parseVariables(text: string): { variables: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (failure) {
    return { problem: `Not valid JSON: ${failure instanceof Error ? failure.message : String(failure)}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problem: 'Variables must be a JSON object, e.g. {"amount": 42}' };
  return { variables: parsed as Record<string, unknown> };
}

/**
 * The instance's variables as JSON, editable: the text is checked before it is sent
 * (PATCH …/variables sets the given names on the root scope; names left out keep their value).
 */
export function VariablesEditor(props: {
  instanceId: string;
  variables: Record<string, unknown>;
  editable: boolean;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const shown = JSON.stringify(props.variables, null, 2);

  if (draft === null)
    return (
      <>
        <pre aria-label="Variables">{shown}</pre>
        {props.editable ? (
          <button type="button" onClick={() => setDraft(shown)}>
            Edit variables
          </button>
        ) : null}
      </>
    );

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = parseVariables(draft);
        if ('problem' in parsed) {
          setProblem(parsed.problem);
          return;
        }
        setProblem(null);
        setError(undefined);
        setBusy(true);
        api
          .patch(`/api/v1/process-instances/${props.instanceId}/variables`, parsed)
          .then(() => {
            setDraft(null);
            props.onSaved();
          })
          .catch((failure: unknown) =>
            setError(failure instanceof Error ? failure : new Error(String(failure))),
          )
          .finally(() => setBusy(false));
      }}
    >
      <label>
        Variables (JSON)
        <textarea
          rows={Math.min(20, draft.split('\n').length + 2)}
          value={draft}
          aria-invalid={problem !== null}
          aria-describedby={problem ? 'variables-problem' : undefined}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
      </label>
      {problem ? (
        <p class="error" role="alert" id="variables-problem">
          {problem}
        </p>
      ) : null}
      <ErrorNotice error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save variables
        </button>
        <button type="button" onClick={() => (setDraft(null), setProblem(null), setError(undefined))}>
          Discard
        </button>
      </div>
    </form>
  );
}
