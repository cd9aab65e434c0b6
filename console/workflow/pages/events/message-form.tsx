import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { parseJsonObject } from '../../components/json-object-input.js';
import { useAction } from '../../components/use-action.js';
import { api } from '../../session.js';
import { InstanceList } from './instance-list.js';
import type { MessageOutcome } from './types.js';

/** Publishes a message (`POST /api/v1/messages`) and shows the instances it started or reached. */
export function MessageForm({ orgId }: { orgId: string }) {
  const [name, setName] = useState('');
  const [correlationKey, setCorrelationKey] = useState('');
  const [ttl, setTtl] = useState('');
  const [variables, setVariables] = useState('{}');
  const action = useAction<MessageOutcome>();

  const send = () =>
    action.run(() =>
      api.post<MessageOutcome>('/api/v1/messages', {
        org_id: orgId,
        message_name: name,
        ...(correlationKey === '' ? {} : { correlation_key: correlationKey }),
        ...(ttl === '' ? {} : { time_to_live_ms: Number(ttl) }),
        variables: parseJsonObject(variables, 'Variables'),
      }),
    );

  return (
    <section aria-labelledby="message-heading" class="panel">
      <h2 id="message-heading">Send a message</h2>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <label>
          Message name
          <input required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          Correlation key (optional)
          <input value={correlationKey} onInput={(event) => setCorrelationKey(event.currentTarget.value)} />
        </label>
        <label>
          Keep unmatched for ms (optional)
          <input type="number" min={0} value={ttl} onInput={(event) => setTtl(event.currentTarget.value)} />
        </label>
        <label>
          Message variables (JSON object)
          <textarea
            rows={4}
            spellcheck={false}
            value={variables}
            onInput={(event) => setVariables(event.currentTarget.value)}
          />
        </label>
        <div>
          <button type="submit" class="primary" disabled={action.busy}>
            Send message
          </button>
        </div>
        <ErrorNotice error={action.error} />
      </form>
      {action.answer ? (
        <div class="outcome" aria-live="polite">
          <h3>Message sent</h3>
          <InstanceList title="Started instances" ids={action.answer.started} />
          <InstanceList title="Correlated instances" ids={action.answer.correlated} />
          {action.answer.buffered ? (
            <p>
              Nothing waited for it: the message is kept until{' '}
              {new Date(action.answer.buffered.expires_at).toLocaleString()}.
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
