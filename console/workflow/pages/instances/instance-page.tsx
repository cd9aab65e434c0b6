import { useRoute } from 'preact-iso';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, base, useOrg } from '../../session.js';
import { HistoryTimeline } from './history-timeline.js';
import { ActionButton } from './instance-actions.js';
import { InstanceDiagram } from './instance-diagram.js';
import type { HistoryEntry, InstanceDetail } from './model.js';
import { StateBadge } from './state-badge.js';
import { VariablesEditor } from './variables-editor.js';

const refreshMs = 3000;

/** One instance: its diagram with tokens, path and incidents; variables; incidents; history. */
export function InstancePage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const org = useOrg();
  const detail = useResource(
    `instance/${id}`,
    (signal) => api.get<InstanceDetail>(`/api/v1/process-instances/${id}`, { signal }),
    { refreshMs },
  );
  const history = useResource(
    `instance-history/${id}`,
    (signal) => api.get<HistoryEntry[]>(`/api/v1/process-instances/${id}/history`, { signal }),
    { refreshMs },
  );
  const reload = () => {
    detail.reload();
    history.reload();
  };
  const instance = detail.data;
  const operator = org?.roles.includes('Operator') ?? false;
  const open = instance?.state === 'running' || instance?.state === 'incident';

  return (
    <Page
      title={instance ? `${instance.process_key} #${instance.counter}` : 'Instance'}
      actions={
        instance && open && operator ? (
          <ActionButton
            label="Cancel instance"
            danger
            confirm="Cancel this instance? Its tokens stop where they are."
            run={() => api.post(`/api/v1/process-instances/${id}/cancel`)}
            onDone={reload}
          />
        ) : null
      }
    >
      <p>
        <a href={`${base}/instances`}>All instances</a>
      </p>
      <ErrorNotice error={detail.error} />
      {!instance ? (
        detail.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <dl class="facts">
            <dt>State</dt>
            <dd>
              <StateBadge instance={instance} />
            </dd>
            <dt>Business key</dt>
            <dd>{instance.business_key ?? '—'}</dd>
            <dt>Started</dt>
            <dd>{new Date(instance.started_at).toLocaleString()}</dd>
            <dt>Ended</dt>
            <dd>{instance.ended_at ? new Date(instance.ended_at).toLocaleString() : '—'}</dd>
            <dt>Waiting at</dt>
            <dd>{instance.active_element_ids.join(', ') || '—'}</dd>
          </dl>
          <h2>Diagram</h2>
          <InstanceDiagram instance={instance} history={history.data ?? []} />
          <div class="grid-2">
            <section aria-labelledby="incidents-heading">
              <h2 id="incidents-heading">Incidents</h2>
              {instance.incidents.length === 0 ? (
                <p class="muted">No open incident.</p>
              ) : (
                <>
                  <ul class="incidents">
                    {instance.incidents.map((incident) => (
                      <li key={incident.id}>
                        <span class="badge incident">{incident.kind}</span> at{' '}
                        <code>{incident.activity_id}</code>: {incident.message}{' '}
                        <span class="muted">({new Date(incident.created_at).toLocaleString()})</span>
                      </li>
                    ))}
                  </ul>
                  {operator ? (
                    <ActionButton
                      label="Retry incidents"
                      run={() => api.post(`/api/v1/process-instances/${id}/retry`)}
                      onDone={reload}
                    />
                  ) : null}
                </>
              )}
              <h2>Variables</h2>
              <VariablesEditor
                instanceId={id}
                variables={instance.variables}
                editable={operator && open}
                onSaved={reload}
              />
            </section>
            <section aria-labelledby="history-heading">
              <h2 id="history-heading">History</h2>
              <ErrorNotice error={history.error} />
              {history.data ? <HistoryTimeline history={history.data} /> : <Loading />}
            </section>
          </div>
        </>
      )}
    </Page>
  );
}
