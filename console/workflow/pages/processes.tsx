import { ErrorNotice } from '../../shared/components/error-notice.js';
import { Loading, Page } from '../../shared/components/page.js';
import { query } from '../../shared/api.js';
import { useResource } from '../../shared/use-resource.js';
import { api, useOrg } from '../session.js';
import type { ProcessDefinition } from '../types.js';
import { DeployForm } from './processes/deploy-form.js';
import { ProcessVersions } from './processes/process-versions.js';
import type { VersionInstanceCounts } from './processes/types.js';

/**
 * Every process key of the org with its versions, newest first, and per version its running,
 * incident and completed instances; deploy a `.bpmn` file, rename a key, disable or enable a version.
 */
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
  const counts = useResource(
    `process-counts/${org?.id}`,
    (signal) =>
      org
        ? api.get<VersionInstanceCounts[]>(`/api/v1/deployments/statistics${query({ org_id: org.id })}`, {
            signal,
          })
        : Promise.resolve([]),
    { refreshMs: 5000 },
  );
  const byKey = new Map<string, ProcessDefinition[]>();
  for (const definition of definitions.data ?? []) {
    const list = byKey.get(definition.process_key) ?? [];
    list.push(definition);
    byKey.set(definition.process_key, list);
  }
  const countsByVersion = new Map((counts.data ?? []).map((entry) => [entry.definition_id, entry]));
  const reload = () => {
    definitions.reload();
    counts.reload();
  };
  return (
    <Page title="Processes">
      {org ? <DeployForm orgId={org.id} onDeployed={reload} /> : null}
      <ErrorNotice error={definitions.error ?? counts.error} />
      {definitions.data === undefined ? (
        <Loading />
      ) : byKey.size === 0 ? (
        <p class="muted">No process is deployed in this organisation yet.</p>
      ) : (
        [...byKey].map(([key, versions]) => (
          <ProcessVersions
            key={key}
            orgId={org?.id ?? ''}
            processKey={key}
            versions={versions}
            counts={countsByVersion}
            onChanged={reload}
          />
        ))
      )}
    </Page>
  );
}
