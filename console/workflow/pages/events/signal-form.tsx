import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { parseJsonObject } from '../../components/json-object-input.js';
import { useAction } from '../../components/use-action.js';
import { api } from '../../session.js';
import { InstanceList } from './instance-list.js';
import type { SignalOutcome } from './types.js';

/** Broadcasts a signal (`POST /api/v1/signals`) and shows the instances it started or reached. */
export function SignalForm({ orgId }: { orgId: string }) {
  const [name, setName] = useState('');
  const [variables, setVariables] = useState('{}');
  const action = useAction<SignalOutcome>();

  const send = () =>
    action.run(() =>
      api.post<SignalOutcome>('/api/v1/signals', {
        org_id: orgId,
        signal_name: name,
        variables: parseJsonObject(variables, 'Variables'),
      }),
    );

  return (
    <section aria-labelledby="signal-heading" class="panel">
      <h2 id="signal-heading">Broadcast a signal</h2>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <label>
          Signal name
          <input required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          Signal variables (JSON object)
          <textarea
            rows={4}
            spellcheck={false}
            value={variables}
            onInput={(event) => setVariables(event.currentTarget.value)}
          />
        </label>
        <div>
          <button type="submit" class="primary" disabled={action.busy}>
            Broadcast signal
          </button>
        </div>
        <ErrorNotice error={action.error} />
      </form>
      {action.answer ? (
        <div class="outcome" aria-live="polite">
          <h3>Signal broadcast</h3>
          <InstanceList title="Started instances" ids={action.answer.started} />
          <InstanceList title="Reached instances" ids={action.answer.delivered} />
        </div>
      ) : null}
    </section>
  );
}
