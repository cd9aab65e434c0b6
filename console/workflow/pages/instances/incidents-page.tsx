import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { query as toQuery } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { fieldText } from '../../../shared/form-data.js';
import { useResource } from '../../../shared/use-resource.js';
import { base, useOrg } from '../../session.js';
import { retryInBatch, type RetryOutcome } from './batch-retry.js';
import type { OrgIncident } from './model.js';
import { getPage } from './paged-get.js';
import { RetryOutcomes } from './retry-outcomes.js';

const pageSize = 100;

/**
 * The open incidents of the org across its instances, filtered by message text and element (in
 * the URL query); select several instances and retry them in one batch, with each one's outcome.
 */
export function IncidentsPage() {
  const org = useOrg();
  const location = useLocation();
  const error = location.query.error ?? '';
  const elementId = location.query.element_id ?? '';
  const cursor = location.query.cursor;
  const listPath = `/api/v1/incidents${toQuery({
    org_id: org?.id,
    error,
    element_id: elementId,
    limit: pageSize,
    cursor,
  })}`;
  const incidents = useResource(
    listPath,
    (signal) => (org ? getPage<OrgIncident>(listPath, signal) : Promise.resolve(null)),
    { refreshMs: 5000 },
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcomes, setOutcomes] = useState<RetryOutcome[] | null>(null);
  const [retryError, setRetryError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const toggle = (instanceId: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(instanceId);
    else next.delete(instanceId);
    setSelected(next);
  };
  const items = incidents.data?.items ?? [];

  return (
    <Page title="Incidents">
      <form
        class="filters"
        aria-label="Filter incidents"
        key={location.url}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          location.route(
            `${base}/incidents${toQuery({
              error: fieldText(form, 'error').trim(),
              element_id: fieldText(form, 'element_id').trim(),
            })}`,
          );
        }}
      >
        <div class="field">
          <label for="filter-error">Error message contains</label>
          <input id="filter-error" name="error" defaultValue={error} />
        </div>
        <div class="field">
          <label for="filter-element_id">Element</label>
          <input id="filter-element_id" name="element_id" defaultValue={elementId} placeholder="element id" />
        </div>
        <button type="submit" class="primary">
          Apply filters
        </button>
      </form>
      <ErrorNotice error={incidents.error} />
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={busy || selected.size === 0 || !org}
          onClick={() => {
            if (!org) return;
            setBusy(true);
            setRetryError(undefined);
            setOutcomes(null);
            retryInBatch(org.id, [...selected])
              .then((result) => {
                setOutcomes(result);
                setSelected(new Set());
                incidents.reload();
              })
              .catch((failure: unknown) =>
                setRetryError(failure instanceof Error ? failure : new Error(String(failure))),
              )
              .finally(() => setBusy(false));
          }}
        >
          {busy ? 'Retrying…' : `Retry selected (${selected.size})`}
        </button>
      </div>
      <ErrorNotice error={retryError} />
      {outcomes ? <RetryOutcomes outcomes={outcomes} /> : null}
      {incidents.data === undefined ? (
        <Loading />
      ) : items.length === 0 ? (
        <p class="muted">No open incident matches.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Select</th>
                <th scope="col">Instance</th>
                <th scope="col">Element</th>
                <th scope="col">Error</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {items.map((incident) => (
                <tr key={incident.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${incident.process_key} instance ${incident.process_instance_id}`}
                      checked={selected.has(incident.process_instance_id)}
                      onChange={(event) => toggle(incident.process_instance_id, event.currentTarget.checked)}
                    />
                  </td>
                  <td>
                    <a href={`${base}/instances/${incident.process_instance_id}`}>
                      {incident.process_key}
                      {incident.business_key ? ` (${incident.business_key})` : ''}
                    </a>
                  </td>
                  <td>
                    <code>{incident.activity_id}</code>
                  </td>
                  <td>{incident.message}</td>
                  <td>{new Date(incident.created_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {incidents.data?.nextCursor ? (
        <nav class="pager" aria-label="Pages">
          <a
            href={`${base}/incidents${toQuery({ error, element_id: elementId, cursor: incidents.data.nextCursor })}`}
          >
            Next page
          </a>
        </nav>
      ) : null}
    </Page>
  );
}
