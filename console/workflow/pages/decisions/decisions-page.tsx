import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { query } from '../../../shared/api.js';
import { useResource } from '../../../shared/use-resource.js';
import { api, useOrg } from '../../session.js';
import { decisionHref } from './decision-links.js';
import type { DecisionVersion } from './types.js';

/** Every decision key of the org with its versions, newest first, each linking to its page. */
export function DecisionsPage() {
  const org = useOrg();
  const decisions = useResource(
    `decisions/${org?.id}`,
    (signal) =>
      org
        ? api.get<DecisionVersion[]>(`/api/v1/decisions${query({ all_versions: true })}`, {
            signal,
            headers: { 'x-org-id': org.id },
          })
        : Promise.resolve([]),
    { refreshMs: 5000 },
  );
  const byKey = new Map<string, DecisionVersion[]>();
  for (const decision of decisions.data ?? []) {
    byKey.set(decision.decision_key, [...(byKey.get(decision.decision_key) ?? []), decision]);
  }
  return (
    <Page title="Decisions">
      <ErrorNotice error={decisions.error} />
      {decisions.data === undefined ? (
        decisions.error ? null : (
          <Loading />
        )
      ) : byKey.size === 0 ? (
        <p class="muted">No decision is deployed in this organisation yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Versions</th>
                <th scope="col">Latest deployed</th>
              </tr>
            </thead>
            <tbody>
              {[...byKey].map(([key, versions]) => (
                <tr key={key}>
                  <td>
                    <a href={decisionHref(key)}>{key}</a>
                  </td>
                  <td>{versions[0]?.name}</td>
                  <td class="versions">
                    {versions.map((version) => (
                      <a key={version.id} class="badge" href={decisionHref(key, version.version)}>
                        v{version.version}
                        <span class="visually-hidden"> of {key}</span>
                      </a>
                    ))}
                  </td>
                  <td>{versions[0] ? new Date(versions[0].deployed_at).toLocaleString() : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
