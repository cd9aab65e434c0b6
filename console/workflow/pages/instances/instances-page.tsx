import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { query as toQuery } from '../../../shared/api.js';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, base, useOrg } from '../../session.js';
import type { ProcessDefinition } from '../../types.js';
import { InstanceFilters, type InstanceQuery } from './instance-filters.js';
import type { Instance } from './model.js';
import { getPage } from './paged-get.js';
import { StateBadge } from './state-badge.js';

const pageSize = 50;
const filterNames: (keyof InstanceQuery)[] = [
  'process_key',
  'definition_id',
  'state',
  'business_key',
  'has_incident',
  'element_id',
  'started_after',
  'started_before',
  'cursor',
];

/**
 * The org's instances, newest first, filtered by the URL's query (a deep link: another page links
 * to `/console/instances?definition_id=…&element_id=…`), paged by the API's cursor.
 */
export function InstancesPage() {
  const org = useOrg();
  const location = useLocation();
  const current: InstanceQuery = {};
  for (const name of filterNames) if (location.query[name]) current[name] = location.query[name];
  // Cursors of the pages before this one, to go back.
  const [previous, setPrevious] = useState<(string | undefined)[]>([]);
  const go = (next: InstanceQuery) => location.route(`${base}/instances${toQuery({ ...next })}`);

  const definitions = useResource(`instance-definitions/${org?.id}`, (signal) =>
    org
      ? api.get<ProcessDefinition[]>(`/api/v1/deployments${toQuery({ org_id: org.id })}`, { signal })
      : Promise.resolve([]),
  );
  const listPath = `/api/v1/process-instances${toQuery({ org_id: org?.id, limit: pageSize, ...current })}`;
  const page = useResource(
    listPath,
    (signal) => (org ? getPage<Instance>(listPath, signal) : Promise.resolve(null)),
    { refreshMs: 5000 },
  );

  return (
    <Page title="Instances">
      <InstanceFilters
        key={location.url}
        query={current}
        definitions={definitions.data ?? []}
        onApply={(next) => {
          setPrevious([]);
          go(next);
        }}
      />
      <ErrorNotice error={page.error ?? definitions.error} />
      {page.data === undefined ? (
        <Loading />
      ) : page.data === null || page.data.items.length === 0 ? (
        <p class="muted">No instance matches these filters.</p>
      ) : (
        <>
          <p class="muted" aria-live="polite">
            {page.data.total} {page.data.total === 1 ? 'instance' : 'instances'}
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Instance</th>
                  <th scope="col">Process</th>
                  <th scope="col">State</th>
                  <th scope="col">Business key</th>
                  <th scope="col">Started</th>
                  <th scope="col">Ended</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((instance) => (
                  <tr key={instance.id}>
                    <td>
                      <a href={`${base}/instances/${instance.id}`}>
                        {instance.process_key} #{instance.counter}
                      </a>
                    </td>
                    <td>{instance.process_key}</td>
                    <td>
                      <StateBadge instance={instance} />
                    </td>
                    <td>{instance.business_key ?? ''}</td>
                    <td>{new Date(instance.started_at).toLocaleString()}</td>
                    <td>{instance.ended_at ? new Date(instance.ended_at).toLocaleString() : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages">
            <button
              type="button"
              disabled={previous.length === 0}
              onClick={() => {
                const back = previous[previous.length - 1];
                setPrevious(previous.slice(0, -1));
                go({ ...current, cursor: back });
              }}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={!page.data.nextCursor}
              onClick={() => {
                setPrevious([...previous, current.cursor]);
                go({ ...current, cursor: page.data?.nextCursor ?? undefined });
              }}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </Page>
  );
}
