import { ErrorNotice } from '../../shared/components/error-notice.js';
import { Loading, Page } from '../../shared/components/page.js';
import { query } from '../../shared/api.js';
import { useResource } from '../../shared/use-resource.js';
import { api, useOrg } from '../session.js';
import type { ProcessDefinition } from '../types.js';

/** Every process key of the org with its versions, newest first. */
export function ProcessesPage() {
  const org = useOrg();
  const definitions = useResource(
    `processes/${org?.id}`,
    (signal) =>
      org
        ? api.get<ProcessDefinition[]>(`/api/v1/deployments${query({ org_id: org.id })}`, { signal })
        : Promise.resolve([]),
    { refreshMs: 5000 },
  );
  const byKey = new Map<string, ProcessDefinition[]>();
  for (const definition of definitions.data ?? []) {
    const list = byKey.get(definition.process_key) ?? [];
    list.push(definition);
    byKey.set(definition.process_key, list);
  }
  return (
    <Page title="Processes">
      <ErrorNotice error={definitions.error} />
      {definitions.data === undefined ? (
        <Loading />
      ) : byKey.size === 0 ? (
        <p class="muted">No process is deployed in this organisation yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Versions</th>
              </tr>
            </thead>
            <tbody>
              {[...byKey].map(([key, versions]) => (
                <tr key={key}>
                  <td>{key}</td>
                  <td>{versions[0]?.name}</td>
                  <td>
                    {versions.map((version) => (
                      <span key={version.id} class="badge">
                        {version.draft ? 'draft' : `v${version.version}`}
                        {version.disabled ? ' (disabled)' : ''}
                        {version.suspended ? ' (suspended)' : ''}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
