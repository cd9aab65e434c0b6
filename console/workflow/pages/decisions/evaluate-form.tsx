import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { parseJsonObject, prettyJson } from '../../components/json-object-input.js';
import { api } from '../../session.js';
import type { Evaluation } from './types.js';

/**
 * Evaluates a decision version with variables typed as a JSON object, and shows the result and the
 * rules that matched (or the API's refusal). `onEvaluated` receives each answer.
 */
export function EvaluateForm(props: {
  orgId: string;
  decisionKey: string;
  version: number;
  onEvaluated: (evaluation: Evaluation | undefined) => void;
}) {
  const [variables, setVariables] = useState('{\n  \n}');
  const [evaluation, setEvaluation] = useState<Evaluation | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const answer = await api.post<Evaluation>(
        `/api/v1/decisions/${encodeURIComponent(props.decisionKey)}/evaluate`,
        { variables: parseJsonObject(variables, 'Variables'), version: props.version },
        { headers: { 'x-org-id': props.orgId } },
      );
      setEvaluation(answer);
      props.onEvaluated(answer);
    } catch (failure) {
      setEvaluation(undefined);
      props.onEvaluated(undefined);
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="evaluate-heading">
      <h2 id="evaluate-heading">Evaluate</h2>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label>
          Variables (JSON object)
          <textarea
            rows={6}
            value={variables}
            spellcheck={false}
            onInput={(event) => setVariables(event.currentTarget.value)}
          />
        </label>
        <div>
          <button type="submit" class="primary" disabled={busy}>
            Evaluate
          </button>
        </div>
        <ErrorNotice error={error} />
      </form>
      {evaluation ? <EvaluationView evaluation={evaluation} /> : null}
    </section>
  );
}

function EvaluationView({ evaluation }: { evaluation: Evaluation }) {
  return (
    <div class="evaluation" aria-live="polite">
      <h3>Result (version {evaluation.version})</h3>
      <pre aria-label="Result">{prettyJson(evaluation.result)}</pre>
      <h3>Matched rules</h3>
      {evaluation.matched_rules.length === 0 ? (
        <p class="muted">No rule matched.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Matched rules">
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">Rule</th>
                <th scope="col">Rule id</th>
              </tr>
            </thead>
            <tbody>
              {evaluation.matched_rules.map((rule) => (
                <tr key={`${rule.decision_id}-${rule.rule_index}`}>
                  <td>{rule.decision_name || rule.decision_id}</td>
                  <td>#{rule.rule_index + 1}</td>
                  <td>{rule.rule_id ?? <span class="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
